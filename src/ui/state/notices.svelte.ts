/** The banners on screen, each owned by the feature that raised it (see ../notices.ts). */
import { clearNotice, noticesFor, raiseNotice, type Notice, type NoticeFeature, type NoticeKind } from '../app/notices.ts';

export class NoticesState {
  list = $state.raw<Notice[]>([]);

  /** `scope`: the state the notice is about (see Notice.scope); it is hidden once `shown`'s scope differs. */
  raise(feature: NoticeFeature, key: string, kind: NoticeKind, message: string, scope?: string): void {
    this.list = raiseNotice(this.list, { feature, key, kind, message, ...(scope === undefined ? {} : { scope }) });
  }

  /** The cause was fixed (a retry succeeded) or the user dismissed the banner. */
  clear(feature: NoticeFeature, key: string): void {
    this.list = clearNotice(this.list, feature, key);
  }

  shown(...features: NoticeFeature[]): Notice[] {
    return noticesFor(this.list, features);
  }

  /** The notices of these features about the current state `scope` (and those about no state in particular). */
  shownIn(scope: string, ...features: NoticeFeature[]): Notice[] {
    return noticesFor(this.list, features, scope);
  }
}
