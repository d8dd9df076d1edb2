/**
 * The modes of every file and directory Herald creates (docs/security.md).
 * Lists, delivery files, offline stores and keys hold users' data or
 * credentials: they are the Herald user's only, whatever the process umask.
 * Each creation site passes these modes explicitly; `herald` also sets
 * umask 0077 so files a library creates on its own (LevelDB's tables) follow.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
/** The online bitmap: written by the presence agent, mapped read-only by the executors of its host (the Herald group). */
export const GROUP_READ_FILE_MODE = 0o640;
