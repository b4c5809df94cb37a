/**
 * Where Hub requests go and the token they may carry: the Hub URL set in Settings and the user's token (HubTokenState
 * in the page). A link, report or stored setting names a repo, never a host, so it cannot send the token elsewhere.
 */
export interface HubAccess {
  hubUrl: string;
  token: string | null;
}
