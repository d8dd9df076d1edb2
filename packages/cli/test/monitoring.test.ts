import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { adminTargets } from '../src/commands/admin';

const ROOT = join(__dirname, '..', '..', '..');

/** Every metric name a source file registers (meter.counter/gauge('herald_...') or a *_METRIC constant). */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts'))
        for (const m of readFileSync(path, 'utf8').matchAll(/'(herald_[a-z_]+)'/g)) names.add(m[1]!);
    }
  };
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    const src = join(ROOT, 'packages', pkg, 'src');
    if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
  }
  return names;
}

describe('deploy/monitoring', () => {
  it('uses in the Grafana dashboard only metrics some process registers', () => {
    const dashboard = JSON.parse(
      readFileSync(join(ROOT, 'deploy', 'monitoring', 'grafana-dashboard.json'), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const registered = registeredMetrics();
    expect(registered.size).toBeGreaterThan(20);
    const used = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) => [...t.expr.matchAll(/herald_[a-z_]+/g)].map((m) => m[0])),
    );
    expect(used.length).toBeGreaterThan(10);
    // A histogram is charted through its series: <name>_bucket, _sum, _count.
    const metricOf = (series: string) => (registered.has(series) ? series : series.replace(/_(bucket|sum|count)$/, ''));
    expect(used.filter((name) => !registered.has(metricOf(name)))).toEqual([]);
  });

  it('writes Prometheus targets from the management endpoints, labelled by process and tier', () => {
    const targets = adminTargets({
      topology: {
        schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://h:1' }],
        executors: [{ id: 'executor-1', endpoint: 'tcp://h:2' }],
        interfaces: [{ id: 'interface-1', membership: 'tcp://h:3' }],
      },
      management: {
        endpoints: {
          'scheduler-1': '10.0.0.1:9101',
          'controller-1': '10.0.0.9:9101',
          'executor-1': '10.0.0.2:9101',
          'interface-1': '10.0.0.3:9101',
        },
      },
    });
    expect(targets).toEqual([
      { targets: ['10.0.0.9:9101'], labels: { process: 'controller-1', tier: 'controller' } },
      { targets: ['10.0.0.2:9101'], labels: { process: 'executor-1', tier: 'executor' } },
      { targets: ['10.0.0.3:9101'], labels: { process: 'interface-1', tier: 'interface' } },
      { targets: ['10.0.0.1:9101'], labels: { process: 'scheduler-1', tier: 'scheduler' } },
    ]);
  });

  it('refuses a config without management endpoints, naming the setting', () => {
    expect(() => adminTargets({})).toThrow(/management\.endpoints/);
  });
});
