-- 007_audiences: the audience sources' tables (docs/audience-sources.md).
--
-- What:
-- * followers: one row per (account, uin) whose follow state ever changed;
--   the source of truth of the `followers` audience. following = 1 for a
--   follower, 0 for a tombstone: an unfollow is kept with its time, so a
--   late, older follow event (the event bus is at least once, and a replay
--   starts from the beginning) cannot bring the user back. changed_at is the
--   winning change's event time, epoch ms.
-- * user_attributes: one row per user the targeting index holds: region,
--   gender (f, m, x), age band, last activity (epoch ms) and tags (a JSON
--   array). The source of truth of the `targeting` audience's bitsets, and
--   what a change clears them from.
-- * attribute_chunks: the per-value bitsets, one row per (bitset key, chunk
--   of 2^16 uins) holding anybody; bits is the chunk's stored form (sparse
--   u16 list under 4096 members, else the dense 8 KiB), as core's
--   targeting/bitset-chunk.ts reads it. Key '*' is every user.
--
-- Why this shape:
-- * followers' primary key (account_id, uin) is the source's keyset: one
--   account's followers are a range of it, read in uin order by
--   `uin > :last ORDER BY uin LIMIT :page`, no sort and no OFFSET.
-- * attribute_chunks' primary key (attr_key, chunk) serves a query's reads
--   (its keys, a window of chunks) and the next-chunk walk over '*'.
-- * Writers of the bitsets serialise on GET_LOCK('herald_attributes'), so
--   two imports never interleave their read-modify-write of a chunk.
-- * Account ids and bitset keys are utf8mb4_nopad_bin like the task tables
--   (001_tables.sql): byte-exact, a trailing space significant.
--
-- Idempotent (IF NOT EXISTS), so re-running it after a half-applied attempt
-- is safe.

CREATE TABLE IF NOT EXISTS followers (
  account_id  VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  uin         INT UNSIGNED NOT NULL,
  following   TINYINT UNSIGNED NOT NULL,
  changed_at  BIGINT NOT NULL,
  PRIMARY KEY (account_id, uin)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS user_attributes (
  uin        INT UNSIGNED NOT NULL,
  region     VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
  gender     CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NULL,
  age_band   VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NULL,
  active_at  BIGINT NULL,
  tags       JSON NOT NULL,
  PRIMARY KEY (uin)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS attribute_chunks (
  attr_key  VARCHAR(80) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  chunk     INT UNSIGNED NOT NULL,
  bits      VARBINARY(8192) NOT NULL,
  PRIMARY KEY (attr_key, chunk)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
