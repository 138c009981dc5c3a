import { threadId } from 'node:worker_threads';

/**
 * The timeline of building a seed's database (a first start on a big seed), with `NOTEVOX_DEBUG=seed`: one line on
 * stderr as each phase ends, from the start and from the word memories' worker thread, with the time since the
 * process started and the CPU time of the thread so far (of the whole process on a Node.js without
 * process.threadCpuUsage) and since its previous line. What the seed bench shows as its phase breakdown.
 */
const enabled = (process.env.NOTEVOX_DEBUG ?? '').split(',').some((v) => v.trim() === 'seed');
let previous = 0;

export function phase(name: string): void {
  if (!enabled) return;
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ?? process.cpuUsage();
  const cpu = (usage.user + usage.system) / 1000;
  const ms = (n: number) => n.toFixed(0).padStart(5);
  process.stderr.write(`sandbox: seed: ${ms(process.uptime() * 1000)} ms ${threadId === 0 ? 'start ' : 'worker'} cpu ${ms(cpu)} ms (+${ms(cpu - previous)}) ${name}\n`);
  previous = cpu;
}
