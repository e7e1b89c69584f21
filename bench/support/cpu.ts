import fs from 'node:fs';
import os from 'node:os';

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 1/100 s). */
export function processCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds the whole machine has run since boot, all cores: user, nice, system, irq and softirq
 * of /proc/stat. Not idle or iowait, nor steal (time the hypervisor gave another machine) or
 * guest (already within user).
 */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) / 100;
}

interface Reading {
  at: number;
  /** machineBusySeconds(). */
  machine: number;
  /** CPU seconds of every PostgreSQL process alive at the reading. */
  postgres: Map<number, number>;
}

function read(): Reading {
  const postgres = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      postgres.set(Number(entry), processCpuSeconds(Number(entry)));
    } catch {
      // The process ended while being read.
    }
  }
  return { at: performance.now(), machine: machineBusySeconds(), postgres };
}

/**
 * Where the machine's cores went over a window: `cpuMeter()` at its start, `summary()` after it, e.g.
 * "machine 1.93 of 2 cores busy, PostgreSQL 0.61". A PostgreSQL backend that ended within the
 * window is missed (the bench's pools keep theirs), one that started counts from zero.
 */
export function cpuMeter(): { summary(): string } {
  const start = read();
  return {
    summary() {
      const end = read();
      const seconds = (end.at - start.at) / 1000;
      let postgres = 0;
      for (const [pid, cpu] of end.postgres) postgres += cpu - (start.postgres.get(pid) ?? 0);
      return `machine ${((end.machine - start.machine) / seconds).toFixed(2)} of ${os.cpus().length} cores busy, PostgreSQL ${(postgres / seconds).toFixed(2)}`;
    },
  };
}

/**
 * The product's component processes under a supervisor (scripts/stack.mjs): gateway, auth,
 * accounts, webhooks, panel, by the entry each was started with; pid of each.
 */
export function componentPids(supervisor: number): Record<string, number> {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), Number(fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch {
      // The process ended while being read.
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === supervisor) return true;
    return false;
  };
  const components: Record<string, number> = {};
  for (const pid of parents.keys()) {
    if (!under(pid)) continue;
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const name = /(?:^|\/)(gateway|services\/(\w[\w-]*))\/dist\/main\.js/.exec(command);
      if (name) components[name[2] ?? name[1]] = pid;
    } catch {
      // The process ended while being read.
    }
  }
  return components;
}
