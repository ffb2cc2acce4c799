/**
 * Child process for src/store/request-upload-staging.test.ts: submits one request of large images to the store of a
 * data folder (or a PostgreSQL URL) and says "ready" before it begins, "done" when its insert returns. The parent
 * SIGKILLs it while its images are being written.
 *
 * Usage: node --import tsx test/helpers/request-submit-child.ts <data dir> <database URL or -> <account> <workspace> <request id> <MiB>
 */
import { openStore } from '../../src/store/database.ts';
import { RequestStore } from '../../src/store/request-store.ts';

const [dataDir, url, accountId, workspaceId, id, mib] = process.argv.slice(2) as [string, string, string, string, string, string];
const store = await openStore({ dataDir, databaseUrl: url === '-' ? undefined : url });
const image = Buffer.alloc(Number(mib) * 1024 * 1024, 7);
process.stdout.write('ready\n');
await new RequestStore(store).insert({ id, accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 1, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map([[0, image]]) });
process.stdout.write('done\n');
await store.close();
