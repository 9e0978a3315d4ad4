import { describe, expect, it } from 'vitest';
import { clusterBrokers } from './cluster';

describe('clusterBrokers', () => {
  it("are kafka.sh's cluster ports unless told otherwise", () => {
    expect(clusterBrokers({})).toEqual(['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094']);
    expect(clusterBrokers({ KAFKA_CLUSTER_PORT_BASE: '29092' })[2]).toBe('127.0.0.1:29094');
    expect(clusterBrokers({ KAFKA_CLUSTER_BROKERS: 'a:1, b:2' })).toEqual(['a:1', 'b:2']);
  });
});
