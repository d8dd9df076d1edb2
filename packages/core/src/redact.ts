/**
 * Secrets never echoed (docs/security.md): every configuration error, log
 * line and metric label that could carry a URL with credentials, a token or
 * a key goes through `redactSecrets` first. It works on text, not on
 * structure, because what leaks is usually a value quoted inside a message
 * ("must be a mysql:// URL (got "mysqlx://herald:S3cret@db")"), and it errs
 * on the side of hiding: a password-looking value that was not one costs an
 * operator a look at the config file; a password in a log costs a rotation.
 */

const MASK = '***';

const RULES: readonly [RegExp, string][] = [
  // scheme://user:password@host -> scheme://user:***@host (any scheme: mysql, mysqlx, http, kafka, ...).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/"'\\]*):[^\s@/"'\\]*@/gi, `$1:${MASK}@`],
  // A password-looking query parameter: ?password=..., &token=..., &secret=...
  [
    /([?&;](?:password|passwd|pwd|pass|token|secret|api_?key|access_?token|auth|sig|signature)=)[^&\s"'\\]*/gi,
    `$1${MASK}`,
  ],
  // Herald API tokens hrd_<id>_<secret>: the id may be shown (it names the token), never the secret.
  [/\b(hrd_[a-z0-9]{1,64}_)[A-Za-z0-9_-]+/g, `$1${MASK}`],
  // Management tokens (herald admin credential): wholly secret.
  [/\bhmt_[A-Za-z0-9_-]+/g, `hmt_${MASK}`],
  // An Authorization header's credentials: 8 characters or more with a digit, a symbol or a capital
  // past the first letter ("Basic settings" is prose; a random token has one of those).
  [
    /\b(Bearer|Basic|Digest)\s+(?=[A-Za-z0-9._~+/=-]{8})(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-]|[A-Za-z][A-Za-z0-9._~+/=-]*[A-Z])[A-Za-z0-9._~+/=-]+/g,
    `$1 ${MASK}`,
  ],
  // A secret-named field in quoted JSON: "password": "...", "secretKey": "..."; also when that JSON is itself quoted (\"password\": \"...\").
  [
    /(\\*"(?:password|passwd|secret|secretKey|token|authorization|apiKey|api_key|privateKey)\\*"\s*:\s*\\*")(.*?)(\\*")/gi,
    `$1${MASK}$3`,
  ],
];

/** `text` with every credential it may hold replaced by ***. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
