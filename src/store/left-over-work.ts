import { sql } from 'kysely';
import type { Store } from './database.ts';

/**
 * What a process stopped without a clean shutdown left for the sweeps and workers (said once at a start, h96): calls'
 * charges still held, jobs whose lease ran out while they ran, files named for removal that are due.
 */
export type LeftOverWork = { held_charges: number; held_credits: number; held_charges_in_time: number; jobs_to_take_up: number; jobs_in_lease: number; files_to_remove: number };

export async function leftOverWork(store: Store, now = Date.now()): Promise<LeftOverWork> {
  // on PostgreSQL other nodes' calls under way hold charges too: only those past their time are a stopped process's
  const holds = (await sql<{ n: number | string; credits: number | string | null }>`SELECT count(*) AS n, sum(amount) AS credits FROM credit_holds ${store.dialect === 'postgres' ? sql`WHERE due <= ${now}` : sql``}`.execute(store.db)).rows[0]!;
  // and, on PostgreSQL, those whose time has not come: after a kill -9 the dead process's calls are among them, and the
  // line said 0 held while two were (h275); other nodes' calls under way count here too, as for jobs_in_lease
  const inTime = store.dialect === 'postgres' ? Number((await sql<{ n: number | string }>`SELECT count(*) AS n FROM credit_holds WHERE due > ${now}`.execute(store.db)).rows[0]!.n) : 0;
  const jobs = (await sql<{ n: number | string }>`SELECT count(*) AS n FROM async_requests WHERE status = 'PROCESSING' AND (lease_until IS NULL OR lease_until < ${now})`.execute(store.db)).rows[0]!;
  // and jobs whose lease still runs: after a quick restart (a kill for memory, systemd's 100 ms) they are the dead
  // process's, taken up when the lease ends, and the line said 0 jobs before "job taken up again" came (h202); on
  // PostgreSQL other nodes' running jobs count here too
  const leased = (await sql<{ n: number | string }>`SELECT count(*) AS n FROM async_requests WHERE status = 'PROCESSING' AND lease_until >= ${now}`.execute(store.db)).rows[0]!;
  const files = (await sql<{ n: number | string }>`SELECT count(*) AS n FROM media_deletions WHERE due <= ${now}`.execute(store.db)).rows[0]!;
  return { held_charges: Number(holds.n), held_credits: Number(holds.credits ?? 0), held_charges_in_time: inTime, jobs_to_take_up: Number(jobs.n), jobs_in_lease: Number(leased.n), files_to_remove: Number(files.n) };
}

/**
 * How the start says it: a warning for what a stopped process surely left; only work under way (charges whose hour has
 * not come, jobs in a lease), which on PostgreSQL other nodes' calls and jobs are too, an info line (h278: every node
 * of a cluster warned at each start); nothing when there is nothing.
 */
export function leftOverNotice(left: LeftOverWork): { level: 'warn' | 'info'; message: string } | undefined {
  if (left.held_charges > 0 || left.jobs_to_take_up > 0 || left.files_to_remove > 0) return { level: 'warn', message: 'found after a stop: charges of calls never answered (given back within the hour), jobs to take up again, files to remove' };
  if (left.held_charges_in_time > 0 || left.jobs_in_lease > 0) return { level: 'info', message: "work under way at this start: a quick restart's calls and jobs, or other nodes' (charges given back within the hour if never answered, jobs taken up when their lease ends)" };
  return undefined;
}
