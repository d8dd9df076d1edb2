/**
 * @module @herald/store-mysql
 *
 * Herald's production TaskStore (and AccessStore: API tokens, audit log;
 * CampaignStore; AccountStore: B-side quotas) on MySQL/MariaDB (mysql2). It passes the same
 * conformance suite (@herald/testing) as the embedded LevelTaskStore. The
 * schema lives in this package's `migrations/NNN_name.sql` files (tables, the
 * outbox triggers, the live-task checkpoint), applied by `migrate` under a
 * database lock; `MySqlTaskStore.open` refuses a database that is not fully
 * migrated.
 *
 * @example
 *   import { migrate, MySqlTaskStore } from '@herald/store-mysql';
 *   await migrate('mysql://herald:secret@db:3306', { database: 'herald' }); // `herald migrate`
 *   const store = await MySqlTaskStore.open({ url: 'mysql://herald:secret@db:3306', database: 'herald' });
 *   const task = await store.createTask(newTask, Date.now());
 *   await store.readOutbox(0, 100); // [{ id, taskId: task.id, from: null, to: 'CREATED', version: 1, at }]
 */
export { MySqlTaskStore } from './mysql-task-store';
export { MySqlAccessStore } from './mysql-access-store';
export { MySqlCampaignStore } from './mysql-campaign-store';
export { MySqlFrequencyCounter } from './mysql-frequency-counter';
export { MySqlDeviceRegistry } from './mysql-device-registry';
export type { MySqlDeviceRegistryOptions } from './mysql-device-registry';
export type { MySqlFrequencyCounterOptions } from './mysql-frequency-counter';
export { MySqlFollowerStore } from './mysql-follower-store';
export { MySqlAttributeIndex } from './mysql-attribute-index';
export { MySqlTableSources } from './mysql-table-source';
export { MySqlAccountStore } from './mysql-account-store';
export { migrate, loadMigrations, MIGRATIONS_DIR, MIGRATION_LOCK } from './migrate';
export type { MigrateOptions, MigrateResult, Migration } from './migrate';
export { DEFAULT_POOL_SIZE } from './connection';
export type { MySqlConnectionOptions, MySqlTaskStoreOptions } from './connection';
export type { MySqlTlsMaterial } from './tls';
