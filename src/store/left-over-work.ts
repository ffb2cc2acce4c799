import { sql } from 'kysely';
import type { Store } from './database.ts';

/**
 * What a process stopped without a clean shutdown left for the sweeps and workers (said once at a start, h96): calls'
 * charges still held, jobs whose lease ran out while they ran, files named for removal that are due.
 */
export async function leftOverWork(store: Store, now = Date.now()): Promise<{ held_charges: number; held_credits: number; held_charges_in_time: number; jobs_to_take_up: number; jobs_in_lease: number; files_to_remove: number }> {
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
