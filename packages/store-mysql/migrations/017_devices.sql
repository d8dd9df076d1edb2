-- 017_devices: the device registry of the mobile-push channels (docs/delivery.md, "Device registry").
--
-- What: devices, one row per device token (an FCM registration token or an
-- APNs device token) with the user (uin) it reaches; device_users, one row
-- per user who ever registered a device, which registration locks so that
-- one user's registrations run one at a time (MySqlDeviceRegistry).
--
-- Why this key: seq (AUTO_INCREMENT) orders registrations, a token registered
-- again is deleted and inserted, so it becomes its user's newest; (uin, seq)
-- is a user's devices oldest first, which the push gateways read a batch of
-- users at a time and registration trims from the front (at most
-- MAX_DEVICES_PER_UIN per user). A token is one device: unique. Tokens are
-- ASCII (URL-safe base64 or hex) and compared byte for byte.

CREATE TABLE IF NOT EXISTS devices (
  seq           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  token         VARCHAR(512) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  uin           INT UNSIGNED NOT NULL,
  platform      ENUM('fcm', 'apns') NOT NULL,
  account_id    VARCHAR(64) NULL,
  registered_at BIGINT NOT NULL,
  PRIMARY KEY (seq),
  UNIQUE KEY devices_token (token),
  KEY devices_uin (uin, seq)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS device_users (
  uin INT UNSIGNED NOT NULL,
  PRIMARY KEY (uin)
) ENGINE = InnoDB;
