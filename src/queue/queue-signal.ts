import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from '../store/database.ts';

export type QueueChannel = 'requests' | 'webhooks';

/**
 * Wakes idle workers when there is work, so a job starts within milliseconds instead of at the
 * next poll. In one process an event is enough; PostgreSQL also carries it to `loupe worker`
 * processes with NOTIFY. SQLite has no such channel: other processes rely on their poll.
 * A lost signal only delays work until the next poll, never loses it.
 */
export class QueueSignal {
  private readonly local = new EventEmitter();
  private listener: pg.Client | undefined;
  private closed = false;

  private constructor(private readonly store: Store) {
    this.local.setMaxListeners(0);
  }

  static async open(store: Store, options: { listen: boolean; onError?: (err: Error) => void }): Promise<QueueSignal> {
    const signal = new QueueSignal(store);
    if (options.listen && store.dialect === 'postgres' && store.databaseUrl) await signal.listen(store.databaseUrl, options.onError ?? (() => {}));
    return signal;
  }

  on(channel: QueueChannel, fn: () => void): () => void {
    this.local.on(channel, fn);
    return () => this.local.off(channel, fn);
  }

  /** Tells this process's workers at once and, on PostgreSQL, every other process's too. */
  notify(channel: QueueChannel): void {
    this.local.emit(channel);
    if (this.store.dialect === 'postgres' && !this.closed) {
      // Fire and forget: pollers pick the work up if the notice is lost.
      void sql.raw(`NOTIFY loupe_${channel}`).execute(this.store.db).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.local.removeAllListeners();
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => {});
  }

  private async listen(url: string, onError: (err: Error) => void): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', (err) => {
      onError(err);
      // Reconnect after a dropped connection; until then polling carries the load.
      if (this.listener === client && !this.closed) {
        this.listener = undefined;
        setTimeout(() => void this.listen(url, onError).catch(onError), 1000).unref();
      }
    });
    client.on('notification', (n) => {
      const channel = n.channel.replace(/^loupe_/, '');
      if (channel === 'requests' || channel === 'webhooks') this.local.emit(channel);
    });
    await client.connect();
    await client.query('LISTEN loupe_requests');
    await client.query('LISTEN loupe_webhooks');
    if (this.closed) await client.end();
    else this.listener = client;
  }
}
