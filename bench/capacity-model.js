/**
 * The capacity model's arithmetic (docs/capacity.md), pure: measured per-host
 * rates in, hosts per tier out. bench/capacity.js measures the rates on this
 * machine and prints what this returns; bench/test/capacity.test.ts checks the
 * arithmetic.
 *
 * Inputs (`rates`), each measured on one host of `rates.cores` cores:
 *   preprocessPerS  recipients/s of one task's pre-processing (read, sort,
 *                   filter chain, filtered-list write): one dispatcher, once
 *                   per task, before any unit is sent
 *   sendPerS        recipients/s of the sending pipeline on one host (stream a
 *                   unit, online check, delivery, offline appends, checkpoints)
 *   offlinePerS     offline-list appends, recipients/s
 *   deliverPerS     delivery channel, online recipients/s handed to the gateway
 *   walkPerS        login walks, users/s (each walk delivers the user's entries)
 *   presencePerS    presence events/s one presence agent applies to its bitmap
 *
 * Scenario (`scenario`): recipients, seconds, online share, logins/s during
 * the broadcast, presence events per login, cores per modelled host and the
 * share of a host the model may plan for (headroom).
 */

const { DEFAULTS } = require('@herald/core/config');

/** The defaults: the seed's Spring Festival broadcast, 10^9 recipients in 15 minutes. */
const SCENARIO_DEFAULTS = {
  recipients: 1e9,
  seconds: 900,
  online: 0.3,
  /** Share of the offline recipients who log in during the broadcast (an assumption: no login trace was measured). */
  loginShare: 0.1,
  /** Presence events per login: the login, and its logout later (an assumption). */
  eventsPerLogin: 2,
  /**
   * Cores of a modelled host. The executors' stages (sending, offline appends, delivery, login walks) scale linearly
   * from the measured host's cores, one executor per core pair (an assumption, stated with the table); one task's
   * pre-processing and a presence agent do not (one list on one dispatcher; one agent, one event loop, per host).
   */
  cores: 2,
  /** Share of each host's measured rate the plan may use: the rest absorbs spread and failover. */
  headroom: 0.7,
  /** Recipients a batch (dispatcher.batchSize's default): one checkpoint and one report each. */
  batchSize: DEFAULTS.dispatcher.batchSize,
};

const RATE_KEYS = ['preprocessPerS', 'sendPerS', 'offlinePerS', 'deliverPerS', 'walkPerS', 'presencePerS'];

/** Throws naming the field unless every rate is a positive finite number and the scenario is well formed. */
function validate(rates, scenario) {
  for (const key of [...RATE_KEYS, 'cores'])
    if (!(Number.isFinite(rates[key]) && rates[key] > 0)) throw new TypeError(`rates.${key}: a positive number`);
  for (const key of ['recipients', 'seconds', 'cores', 'headroom', 'eventsPerLogin', 'batchSize'])
    if (!(Number.isFinite(scenario[key]) && scenario[key] > 0))
      throw new TypeError(`scenario.${key}: a positive number`);
  for (const key of ['online', 'loginShare', 'headroom'])
    if (!(scenario[key] >= 0 && scenario[key] <= 1)) throw new TypeError(`scenario.${key}: between 0 and 1`);
}

/**
 * Hosts per tier for `scenario` from the measured `rates`. Returns the demand
 * per stage, the hosts each stage alone would need, the executor hosts (the
 * sending pipeline and the login walks share one host's cores), whether the
 * broadcast fits at all, and the stage that saturates first: the one with the
 * least room left at the planned host count, a stage that adding hosts cannot
 * relieve (pre-processing, presence) first when it is over.
 */
function capacityPlan(rates, options = {}) {
  const scenario = { ...SCENARIO_DEFAULTS, ...options };
  validate(rates, scenario);
  const coreScale = scenario.cores / rates.cores;
  const usable = (rate, scalesWithCores = true) => rate * (scalesWithCores ? coreScale : 1) * scenario.headroom;

  // One task is pre-processed by one dispatcher (its filter chain's worker threads are that host's cores), and no
  // unit is sent before its filtered list is written: this time comes off the window, whatever the host count.
  const preprocessS = scenario.recipients / usable(rates.preprocessPerS, false);
  const sendWindowS = scenario.seconds - preprocessS;
  const fits = sendWindowS > 0;
  const sendDemand = fits ? scenario.recipients / sendWindowS : Infinity;
  const loginsPerS = (scenario.loginShare * (1 - scenario.online) * scenario.recipients) / scenario.seconds;
  const presenceDemand = loginsPerS * scenario.eventsPerLogin;

  // `scales`: more hosts take more of it (else one host must do all of it, and its share of one host is what counts).
  const stage = (name, tier, demand, perHost, scales, measured) => ({
    stage: name,
    tier,
    demandPerS: demand,
    perHostPerS: usable(perHost, scales),
    hostsAlone: scales ? Math.ceil(demand / usable(perHost, scales)) : undefined,
    utilisationOfOne: demand / usable(perHost, scales),
    scales,
    measured,
  });
  const stages = [
    stage(
      'pre-processing (one task, one dispatcher)',
      'dispatcher',
      scenario.recipients / scenario.seconds,
      rates.preprocessPerS,
      false,
      'preprocessPerS',
    ),
    stage(
      'sending pipeline (stream, online check, deliver, offline append, checkpoint)',
      'executor',
      sendDemand,
      rates.sendPerS,
      true,
      'sendPerS',
    ),
    stage(
      'offline appends (part of sending)',
      'executor',
      sendDemand * (1 - scenario.online),
      rates.offlinePerS,
      true,
      'offlinePerS',
    ),
    stage(
      'delivery channel (part of sending)',
      'executor',
      sendDemand * scenario.online,
      rates.deliverPerS,
      true,
      'deliverPerS',
    ),
    stage('login walks', 'executor', loginsPerS, rates.walkPerS, true, 'walkPerS'),
    // Every host's agent applies every presence event (each host's bitmap holds every user): more hosts do not help.
    stage(
      'presence events (every agent applies all)',
      'presence',
      presenceDemand,
      rates.presencePerS,
      false,
      'presencePerS',
    ),
  ];

  // Sending and login walks run in the executors of the same hosts: their shares of a host add up.
  const executorHosts = fits
    ? Math.max(1, Math.ceil(sendDemand / usable(rates.sendPerS) + loginsPerS / usable(rates.walkPerS)))
    : Infinity;
  // No host count sends a list whose pre-processing outlasts the window: then pre-processing is what saturates.
  const roomLeft = (s) =>
    !s.scales ? 1 - s.utilisationOfOne : fits ? 1 - s.demandPerS / (executorHosts * s.perHostPerS) : Infinity;
  const byRoom = stages
    .filter((s) => !s.stage.includes('part of sending'))
    .map((s) => ({ stage: s.stage, roomLeft: roomLeft(s) }))
    .sort((a, b) => a.roomLeft - b.roomLeft);
  const presenceStage = stages[stages.length - 1];
  return {
    scenario,
    preprocessS,
    sendWindowS,
    /** The broadcast itself: its list pre-processed within the window, then sent on `sendingHosts`. */
    broadcastFits: fits,
    sendingHosts: fits ? Math.max(1, Math.ceil(sendDemand / usable(rates.sendPerS))) : Infinity,
    /** The logins during it: every host's presence agent keeps up with every presence event. */
    loginsFit: presenceStage.utilisationOfOne <= 1,
    maxLoginsPerS: presenceStage.perHostPerS / scenario.eventsPerLogin,
    loginsPerS,
    batchesPerS: sendDemand / scenario.batchSize,
    stages,
    executorHosts,
    /** One presence agent per executor host; one dispatcher pre-processes the task (more for other tasks and failover). */
    presenceAgents: executorHosts,
    saturatesFirst: byRoom[0].stage,
    roomLeft: byRoom,
  };
}

module.exports = { capacityPlan, SCENARIO_DEFAULTS, RATE_KEYS };
