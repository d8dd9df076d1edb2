import type { Task } from '@herald/core/task';
import { startEmbeddedCluster, type EmbeddedCluster } from '@herald/embedded';
import { createPromMeter } from '@herald/metrics';
import { makeTempDir, promtoolCheckMetrics, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS, type TempDir } from '@herald/testing';
import { call, listBytes, upload, waitForEnd } from './helpers';

/**
 * Every `/metrics` must pass `promtool check metrics`, Prometheus's own
 * linter: a name it rejects is one a Prometheus operator's checks reject too.
 */
describe('GET /metrics passes promtool check metrics', () => {
  let dir: TempDir;
  let cluster: EmbeddedCluster;

  beforeAll(async () => {
    dir = await makeTempDir('herald-promtool-');
    cluster = await startEmbeddedCluster({
      dataDir: dir.path,
      uinSpaceBits: 20,
      http: { port: 0 },
      auth: TEST_AUTH_OPTIONS,
      tasks: TEST_TASK_OPTIONS,
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  });

  it('on the embedded profile, after a broadcast, an API error and a login (labelled series and histograms filled in)', async () => {
    cluster.online.setOnline(1, true);
    const list = await upload(cluster, '/api/v1/lists?accountId=acme', listBytes([1, 2, 3]));
    expect(list.status).toBe(201);
    const created = await call<Task>(cluster, 'POST', '/api/v1/tasks', {
      accountId: 'acme',
      listId: (list.body as { id: string }).id,
      content: { body: 'hi' },
    });
    expect((await waitForEnd(cluster, created.body.id)).state).toBe('COMPLETED');
    expect((await call(cluster, 'GET', '/api/v1/tasks/999999')).status).toBe(404);
    await cluster.login([2]);

    const response = await fetch(`${cluster.url}/metrics`);
    expect(response.status).toBe(200);
    const body = await response.text();
    // The scrape is the real one: the tiers' counters and a histogram with observations are in it.
    expect(body).toMatch(/^herald_task_transitions_total\{event="complete"\} [1-9]/m);
    expect(body).toMatch(/^herald_api_request_seconds_count\{.*\} [1-9]/m);
    expect(await promtoolCheckMetrics(body)).toEqual({ code: 0, output: '' });
  });

  it("on a production process's meter: prom-client's defaults plus a counter, gauge and histogram", async () => {
    const meter = createPromMeter({ defaultMetrics: true });
    meter.counter('herald_things_total', 'Things', ['kind']).inc({ kind: 'a' });
    meter.gauge('herald_things_waiting', 'Things waiting').set(3);
    meter.histogram('herald_thing_seconds', 'Time per thing', ['kind'], [0.1, 1]).observe(0.2, { kind: 'a' });
    const { body } = await meter.exposition();
    expect(body).toMatch(/^process_cpu_seconds_total /m);
    expect(body).toMatch(/^nodejs_active_handles\{type=/m); // the by-type gauge stays; its misnamed sum is gone
    expect(body).not.toMatch(/^nodejs_active_\w+_total/m);
    expect(await promtoolCheckMetrics(body)).toEqual({ code: 0, output: '' });
  });

  it('is a check that fails: a gauge named like a counter is refused', async () => {
    const meter = createPromMeter();
    meter.gauge('herald_misnamed_total', 'A gauge with a counter suffix').set(1);
    const verdict = await promtoolCheckMetrics((await meter.exposition()).body);
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toContain('herald_misnamed_total non-counter metrics should not have "_total" suffix');
  });
});
