/** The threshold rules of scripts/measure-rejection.ts on hand-computed confidences. */
import { describe, expect, it } from 'vitest';
import { chooseThreshold, youdenThreshold } from '../../scripts/measure-rejection.ts';

describe('chooseThreshold (largest multiple of 0.05 keeping ≥ 95 % of in-domain answered)', () => {
  it('keeps 19 of 20 at the chosen threshold and would keep fewer one step up', () => {
    // 20 in-domain confidences: one at 0.1, one at 0.32, the rest at 0.9. At 0.30: 19/20 = 95 % kept;
    // at 0.35: 18/20 = 90 % → 0.30.
    const xs = [0.1, 0.32, ...Array.from({ length: 18 }, () => 0.9)];
    expect(chooseThreshold(xs)).toBe(0.3);
    // with keep = 0.9 the 0.32 may go too: at 0.90, 18/20 = 90 % kept; at 0.95, 0 → 0.90
    expect(chooseThreshold(xs, 0.9)).toBe(0.9);
    // all equal: everything passes up to that value
    expect(chooseThreshold([0.5, 0.5, 0.5])).toBe(0.5);
  });
});

describe("youdenThreshold (max TPR − FPR)", () => {
  it('picks the grid point that best separates the two sets', () => {
    // in [0.6, 0.7, 0.8], out [0.1, 0.2, 0.65]: at 0.25 → TPR 1, FPR 1/3 → J 2/3 (first grid point with the max);
    // at 0.7 → TPR 2/3, FPR 0 → J 2/3 too, not larger, so the lower threshold stays
    expect(youdenThreshold([0.6, 0.7, 0.8], [0.1, 0.2, 0.65])).toBe(0.25);
    // in [0.5, 0.9], out [0.1, 0.45]: J = 1/2 from 0.15 to 0.45 (0.45 still counts as answered), J = 1 at 0.5
    expect(youdenThreshold([0.5, 0.9], [0.1, 0.45])).toBe(0.5);
  });
});
