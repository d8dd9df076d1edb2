/**
 * How Herald's processes prove who they are to Kafka, ZooKeeper and MySQL,
 * and how presence events prove they come from the login service
 * (docs/security-connections.md). Step one (what an operator writes) and
 * step three (compiled) of each; compile-connection-security.ts validates.
 * Kept apart from options.ts (which only names these types) so the security
 * settings read as one piece. The compiled settings name files; the
 * production profile reads them at start and hands the adapters what they
 * hold, and each adapter checks its own options again (it can be used alone).
 */

/** The SASL mechanisms kafkajs speaks that Herald accepts (no OAUTHBEARER, no AWS-IAM). */
export const KAFKA_SASL_MECHANISMS = ['scram-sha-512', 'scram-sha-256', 'plain'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/** `kafka.sasl`: the principal this process authenticates as. */
export interface KafkaSaslOptions {
  /** 'scram-sha-512' (recommended), 'scram-sha-256' or 'plain' (plain needs `kafka.tls`: it sends the password as is). Case does not matter. */
  mechanism?: string;
  username?: string;
  /** The password itself; prefer `passwordFile`. Never shown in errors or logs. */
  password?: string;
  /** A file holding the password (one trailing newline is ignored). Exactly one of password, passwordFile. */
  passwordFile?: string;
}

/** `kafka.tls`: TLS to the brokers. Present (even `{}`) means on. */
export interface TlsFileOptions {
  /** PEM file of the CA(s) that signed the server's certificate. Default: Node's built-in CAs. */
  caFile?: string;
  /** PEM client certificate, for mutual TLS; needs keyFile. */
  certFile?: string;
  /** PEM private key of certFile; needs certFile. */
  keyFile?: string;
  /** Refuse a server whose certificate does not verify against the CAs (and, for Kafka and MySQL, name the host). Default true. */
  rejectUnauthorized?: boolean;
}

export interface KafkaSaslConfig {
  mechanism: KafkaSaslMechanism;
  username: string;
  /** Exactly one of password, passwordFile is set. */
  password: string | null;
  passwordFile: string | null;
}

export interface TlsFileConfig {
  caFile: string | null;
  certFile: string | null;
  keyFile: string | null;
  rejectUnauthorized: boolean;
}

/** `zookeeper.auth`: digest authentication and the ACLs of Herald's znodes. */
export interface ZooKeeperAuthOptions {
  /** "user:password". Prefer `credentialsFile`. Never shown in errors or logs. */
  credentials?: string;
  /** A file holding "user:password" (one trailing newline is ignored). Exactly one of credentials, credentialsFile. */
  credentialsFile?: string;
  /**
   * A monitoring identity given read access (r) to every znode Herald creates:
   * "user:digest", digest = base64(sha1("user:password")) as ZooKeeper's
   * DigestAuthenticationProvider makes it
   * (`echo -n user:password | openssl dgst -binary -sha1 | base64`). Herald
   * never needs that identity's password. Default none.
   */
  monitorDigest?: string;
}

export interface ZooKeeperAuthConfig {
  credentials: string | null;
  credentialsFile: string | null;
  /** "user:base64(sha1(user:password))" of the monitoring identity, or null. */
  monitorDigest: string | null;
}

/** `mysql.tls`: TLS to MySQL. Present (even `{}`) means on. */
export interface MySqlTlsOptions extends TlsFileOptions {
  /** Check that the server's certificate names the host of mysql.url (needs rejectUnauthorized). Default true. */
  verifyIdentity?: boolean;
}

export interface MySqlTlsConfig extends TlsFileConfig {
  verifyIdentity: boolean;
}

/** `presence`: the presence agents' settings. */
export interface PresenceOptions {
  /**
   * A file holding the HMAC-SHA256 key shared with the login service. When set,
   * the agents apply only presence events signed with it (docs/presence.md,
   * "Signed events"); others are counted and dropped. Default none: every
   * well-formed event is applied.
   */
  hmacKeyFile?: string;
}

export interface PresenceConfig {
  hmacKeyFile: string | null;
}
