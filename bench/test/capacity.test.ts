/**
 * The capacity model's arithmetic (bench/capacity-model.js), on round rates
 * chosen so every answer can be worked by hand; bench/capacity.js measures the
 * real rates and is run by hand (its figures go to RESULTS.md).
 */
interface Stage {
  stage: string;
  demandPerS: number;
  hostsAlone: number | undefined;
  utilisationOfOne: number;
  scales: boolean;
}
interface Plan {
  preprocessS: number;
  sendWindowS: number;
  broadcastFits: boolean;
  sendingHosts: number;
  executorHosts: number;
  loginsFit: boolean;
  loginsPerS: number;
  maxLoginsPerS: number;
  batchesPerS: number;
  stages: Stage[];
  saturatesFirst: string;
}
// The bench modules are plain JavaScript without types: required, typed here as far as the test uses them.
const { capacityPlan } = require('../capacity-model') as {
  capacityPlan(rates: Record<string, number>, scenario?: Record<string, number>): Plan;
};

// Per 2-core host: 10^7/s pre-processing, 10^6/s sending, 10^5 login walks/s, 10^6 presence events/s.
const RATES = {
  cores: 2,
  preprocessPerS: 1e7,
  sendPerS: 1e6,
  offlinePerS: 2e6,
  deliverPerS: 4e6,
  walkPerS: 1e5,
  presencePerS: 1e6,
};
const SCENARIO = {
  recipients: 1e9,
  seconds: 1000,
  online: 0.5,
  loginShare: 0.1,
  headroom: 1,
  cores: 2,
  batchSize: 16_384,
};
const stage = (plan: Plan, start: string) => plan.stages.find((s) => s.stage.startsWith(start))!;

describe('the capacity model', () => {
  it('takes pre-processing off the window, then spreads sending over hosts', () => {
    const plan = capacityPlan(RATES, SCENARIO);
    expect(plan.preprocessS).toBe(100); // 10^9 / 10^7
    expect(plan.sendWindowS).toBe(900);
    expect(plan.broadcastFits).toBe(true);
    expect(stage(plan, 'sending').demandPerS).toBeCloseTo(1e9 / 900);
    expect(plan.sendingHosts).toBe(2); // 1.11 x 10^6/s on hosts of 10^6/s
    expect(stage(plan, 'offline appends').demandPerS).toBeCloseTo(0.5e9 / 900);
    expect(plan.batchesPerS).toBeCloseTo(1e9 / 900 / 16_384);
  });

  it('adds the login walks to the same executor hosts, and counts every presence event at every agent', () => {
    const plan = capacityPlan(RATES, SCENARIO);
    expect(plan.loginsPerS).toBe(50_000); // 10% of 5 x 10^8 offline in 1,000 s
    expect(stage(plan, 'login walks').hostsAlone).toBe(1);
    expect(plan.executorHosts).toBe(2); // ceil(1.11 + 0.5)
    expect(stage(plan, 'presence').utilisationOfOne).toBeCloseTo(0.1); // 2 events a login, 10^5/s of 10^6/s
    expect(plan.loginsFit).toBe(true);
    expect(plan.maxLoginsPerS).toBe(500_000);
  });

  it("scales the executors' stages with cores, not one task's pre-processing or a presence agent", () => {
    const plan = capacityPlan(RATES, { ...SCENARIO, cores: 16 });
    expect(plan.sendingHosts).toBe(1);
    expect(stage(plan, 'login walks').hostsAlone).toBe(1);
    expect(plan.preprocessS).toBe(100);
    expect(stage(plan, 'presence').utilisationOfOne).toBeCloseTo(0.1);
  });

  it('plans for the headroom share of each rate only', () => {
    expect(capacityPlan(RATES, { ...SCENARIO, headroom: 0.5 }).preprocessS).toBe(200);
  });

  it('says a list pre-processed slower than the window never fits, and names the stage that saturates first', () => {
    const slow = capacityPlan({ ...RATES, preprocessPerS: 1e6 }, SCENARIO);
    expect(slow.broadcastFits).toBe(false);
    expect(slow.sendingHosts).toBe(Infinity);
    expect(slow.saturatesFirst).toMatch(/^pre-processing/);
    const busyLogins = capacityPlan({ ...RATES, presencePerS: 5e4 }, SCENARIO);
    expect(busyLogins.loginsFit).toBe(false);
    expect(busyLogins.saturatesFirst).toMatch(/^presence/);
  });

  it('refuses a missing rate or a share outside [0, 1], naming it', () => {
    expect(() => capacityPlan({ ...RATES, walkPerS: 0 }, SCENARIO)).toThrow('rates.walkPerS');
    expect(() => capacityPlan(RATES, { ...SCENARIO, online: 1.5 })).toThrow('scenario.online');
  });
});
