/** What a presence event asks for, whatever its version: the uin is online (or not) since `at`. */
export interface PresenceChange {
  uin: number;
  online: boolean;
  at: number;
}
