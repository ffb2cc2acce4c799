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

  /** `onError`: the listening connection lost or not made again; `onBack`: listening again after that. */
  static async open(store: Store, options: { listen: boolean; onError?: (err: Error) => void; onBack?: (attempts: number) => void; retryMs?: number }): Promise<QueueSignal> {
    const signal = new QueueSignal(store);
    if (options.listen && store.dialect === 'postgres' && store.databaseUrl) {
      signal.retryMs = options.retryMs ?? 1000;
      signal.onBack = options.onBack ?? (() => {});
      await signal.listen(store.databaseUrl, options.onError ?? (() => {}));
    }
    return signal;
  }

  private retryMs = 1000;
  private onBack: (attempts: number) => void = () => {};

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

  /**
   * Listens again after the connection was lost, until it works: once a second, then less often, up to every 30 s. A
   * failed reconnect was not tried again, so after an outage of over a second every node stopped waking the others for
   * good, and nothing said so (h226).
   */
  private reconnect(url: string, onError: (err: Error) => void, attempt = 1): void {
    const wait = Math.min(this.retryMs * 2 ** (attempt - 1), 30 * this.retryMs);
    setTimeout(() => {
      if (this.closed) return;
      this.listen(url, onError).then(
        () => this.onBack(attempt),
        // said once, when lost; then tried again quietly
        () => this.reconnect(url, onError, attempt + 1),
      );
    }, wait).unref();
  }

  private async listen(url: string, onError: (err: Error) => void): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', (err) => {
      // Reconnect after a dropped connection; until then polling carries the load.
      if (this.listener === client && !this.closed) {
        onError(err);
        this.listener = undefined;
        this.reconnect(url, onError);
      }
    });
    client.on('notification', (n) => {
      const channel = n.channel.replace(/^loupe_/, '');
      if (channel === 'requests' || channel === 'webhooks') this.local.emit(channel);
    });
    try {
      await client.connect();
      await client.query('LISTEN loupe_requests');
      await client.query('LISTEN loupe_webhooks');
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) await client.end();
    else this.listener = client;
  }
}
