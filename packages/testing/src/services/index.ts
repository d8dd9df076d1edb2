export { TestZooKeeper } from './zookeeper';
export { TestKafka } from './kafka-mock';
export { ensureSharedMariaDb, PrivateMariaDb } from './mariadb';
export { freePort, waitForPort } from './process-util';
