/** The colour theme (system / light / dark): kept in localStorage, applied as `data-theme` on the root element (app.css). */
import { parseTheme, THEME_KEY, type Theme } from '../app/theme.ts';

export class ThemeState {
  choice = $state<Theme>('system');

  constructor() {
    this.choice = parseTheme(localStorage.getItem(THEME_KEY));
    this.apply();
  }

  set(choice: string): void {
    this.choice = parseTheme(choice);
    if (this.choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, this.choice);
    this.apply();
  }

  private apply(): void {
    document.documentElement.dataset.theme = this.choice;
  }
}
