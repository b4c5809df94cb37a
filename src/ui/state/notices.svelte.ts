/** The banners on screen, each owned by the feature that raised it (see ../notices.ts). */
import { clearNotice, noticesFor, raiseNotice, type Notice, type NoticeFeature, type NoticeKind } from '../notices.ts';

export class NoticesState {
  list = $state.raw<Notice[]>([]);

  raise(feature: NoticeFeature, key: string, kind: NoticeKind, message: string): void {
    this.list = raiseNotice(this.list, { feature, key, kind, message });
  }

  /** The cause was fixed (a retry succeeded) or the user dismissed the banner. */
  clear(feature: NoticeFeature, key: string): void {
    this.list = clearNotice(this.list, feature, key);
  }

  shown(...features: NoticeFeature[]): Notice[] {
    return noticesFor(this.list, features);
  }
}
