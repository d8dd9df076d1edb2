import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HeraldError } from '@herald/core';

/**
 * The host's counters as Linux's /proc shows them: the adapter under the
 * load reports (docs/scheduling.md "Load-aware dispatch"). The parsers are
 * pure and take the files' text; `readProcCounters` is the only I/O.
 */
export interface ProcCounters {
  /** cpuN lines of /proc/stat: the online CPUs. */
  cores: number;
  /** Jiffies since boot over every CPU: all of them, and those not idle (idle and iowait excluded). */
  cpuTotalTicks: number;
  cpuBusyTicks: number;
  memTotalBytes: number;
  /** MemAvailable: what can be handed out without swapping. */
  memAvailableBytes: number;
  /** Bytes received plus sent since boot, over every interface that leaves the host (see NOT_A_NIC). */
  nicBytes: number;
}

/** Interfaces whose bytes never leave the host (lo), or mirror another's (ifb: tc's ingress shaping, cgroup/). */
const NOT_A_NIC = /^(lo|ifb\d*)$/;

export async function readProcCounters(root = '/proc'): Promise<ProcCounters> {
  const [stat, meminfo, netdev] = await Promise.all(
    ['stat', 'meminfo', 'net/dev'].map((name) => readFile(join(root, name), 'utf8')),
  );
  return { ...parseStat(stat!), ...parseMeminfo(meminfo!), nicBytes: parseNetDev(netdev!) };
}

/** /proc/stat: the aggregate "cpu" line (user nice system idle iowait irq softirq steal ...) and the cpuN count. */
export function parseStat(text: string): Pick<ProcCounters, 'cores' | 'cpuTotalTicks' | 'cpuBusyTicks'> {
  const lines = text.split('\n');
  const total = lines.find((l) => /^cpu\s/.test(l));
  if (total === undefined) throw unreadable('stat', 'has no aggregate cpu line');
  // guest and guest_nice (fields 9, 10) are already counted in user and nice.
  const ticks = total.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 4 || ticks.some((t) => !Number.isFinite(t)))
    throw unreadable('stat', `cpu line is not numbers: ${total}`);
  const all = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3]! + (ticks[4] ?? 0);
  return { cores: lines.filter((l) => /^cpu\d+\s/.test(l)).length, cpuTotalTicks: all, cpuBusyTicks: all - idle };
}

/** /proc/meminfo: MemTotal and MemAvailable, in kB there. */
export function parseMeminfo(text: string): Pick<ProcCounters, 'memTotalBytes' | 'memAvailableBytes'> {
  const kb = (key: string) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    if (match === null) throw unreadable('meminfo', `has no ${key}`);
    return Number(match[1]) * 1024;
  };
  return { memTotalBytes: kb('MemTotal'), memAvailableBytes: kb('MemAvailable') };
}

/** /proc/net/dev: "iface: rxBytes rxPackets ... (8 receive fields) txBytes ...", after two header lines. */
export function parseNetDev(text: string): number {
  let bytes = 0;
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    if (NOT_A_NIC.test(line.slice(0, colon).trim())) continue;
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    bytes += (fields[0] ?? 0) + (fields[8] ?? 0);
  }
  return bytes;
}

/** A /proc file this kernel writes differently: the host cannot report its load (retried at the next interval). */
function unreadable(file: string, problem: string): HeraldError {
  return new HeraldError('UNAVAILABLE', `/proc/${file} ${problem}`, { retriable: true, details: { file } });
}
