import { editDistance } from './util/edit-distance.ts';
import { fstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { present } from './util/path-present.ts';
import { collectionTypes } from './store/collection-store.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';
import { loadConfig } from './config/config.ts';
import { backupDataFolder } from './store/backup.ts';
import { moveToPostgres } from './store/move-to-postgres.ts';
import { betweenBatches } from './store/import-staging.ts';
import { claimDataFolder } from './store/data-folder-claim.ts';
import { flushErased, sqliteFileOf } from './store/database.ts';
import { parseServices } from './services/account-service.ts';
import { openServices, type Services } from './services/container.ts';
import { describeCollection, describeLockBudget, maxCapacity } from './services/collection-service.ts';
import { ServiceError, isUuid } from './services/errors.ts';
import { CATALOG_KINDS, inputsOf, isCatalogKind, CatalogRequestError, type CatalogImportResult, type ImportProgress } from './catalog/catalog-import.ts';
import { ColumnMapError, parseColumnMap } from './catalog/formats/generic-csv.ts';
import { MATCH_MODES, type MatchMode } from './catalog/reference-images.ts';
import { whenLauncherExits } from './util/launcher-watch.ts';
import { UPGRADE_WAIT_LINES } from './store/migrate.ts';

const usage = `loupe — Loupe admin command (uses LOUPE_DATA_DIR or DATABASE_URL like the server)

  loupe account create --name N [--credits C] [--services s1,s2]
  loupe account list
  loupe account show --account A
  loupe account delete --account A [--dry-run | --yes]  the account erased with everything it holds: collections, sessions, requests, files (docs/operations.md "Erasure")
  loupe workspace add --account A [--name N]
  loupe workspace list --account A
  loupe workspace delete --workspace W [--dry-run | --yes]   the workspace erased with its sessions, requests and files; the account stays
                    (its default workspace goes only with the account; docs/operations.md "Erasure")
  loupe token add --account A [--name N]
  loupe token list --account A      ids and names (the tokens themselves are not kept)
  loupe token revoke --token T | --id TOKEN_ID
  loupe token delete --token T | --id TOKEN_ID [--dry-run | --yes]   the token gone with its name (revoked ones too; docs/operations.md "Erasure")
  loupe credits add --account A --amount N
  loupe services enable --account A --services s1,s2
  loupe services disable --account A --services s1,s2
  loupe collection create --account A --type photo|product|custom|fashion|homedecor --name N [--product-field F] [--capacity N]
  loupe collection list [--account A]
  loupe collection show --collection C
  loupe collection delete --collection C [--dry-run | --yes]
  loupe collection compact --collection C   the words of records deleted alone written out of the database file (SQLite's
                    keyword index keeps them until its segments merge; docs/operations.md "Erasure"); on PostgreSQL, VACUUM FULL does it
  loupe migrate
  loupe backup --to DIR              a consistent copy of the SQLite data folder, while the server runs (docs/operations.md "Backups")
  loupe move-to-postgres --to URL    the embedded database (LOUPE_DATA_DIR) copied into a new, empty PostgreSQL
                    database in one transaction, with its vectors and indexes made PostgreSQL's; the server
                    stopped first; the data folder's media stay where they are (docs/operations.md "Moving to PostgreSQL")
  loupe request delete --request ID [--dry-run | --yes]  one asynchronous request with its inputs and result files, before its retention
                    ends (docs/operations.md "Erasure"); one not done yet is refunded
  loupe media check [--decode]      every media file the database names: missing, empty or damaged ones listed with
                    the session row or request naming them; --decode reads each image whole (slower)
  loupe worker                      run queue workers in this process until stopped (scale-out)
  loupe flow create --file f.json [--name N]   create or replace a flow (docs/flows.md)
  loupe flow list
  loupe flow show --name N
  loupe flow delete --name N [--dry-run | --yes]
  loupe webhook-secret show --account A      the key webhook signatures are made with
  loupe webhook-secret rotate --account A
  loupe webhook resend --account A   every webhook of the account that failed for good sent again (after a receiver's
                    outage; docs/webhooks.md "Sending again")
  loupe catalog import --kind pokemon|mtg|yugioh|sports|comics|csv --cards F [--sets F] [--catalog NAME] [--remove-missing [--force]]
                    (sports: --csv F; comics: --file F (.json or .csv); yugioh: --cards F.json or --csv F.csv;
                     csv: --csv F (or --cards F) --map name=COL,number=COL,set_code=COL,set_name=COL,rarity=COL,year=COL,key=COL)
                    files may be gzipped; the catalog is named after the kind unless --catalog says otherwise;
                    an import adds and updates cards; --remove-missing also removes the catalog's cards of the
                    same format that the file lacks, with their prices and reference images (more than a tenth
                    of them only with --force); --dry-run reads and checks the files as the import does and answers
                    what it would add, update and remove, writing nothing; --yes removes without asking at a terminal
  loupe catalog images --catalog NAME --dir D [--match id|number|name] [--set CODE]
                    attaches the folder's reference scans to the catalog's cards, for artwork comparison:
                    each file names one card by its id (a manifest.json in the folder or its parent, else the file's
                    name), its collector number or its name; files naming no card or several are listed
  loupe catalog list
  loupe catalog cards --catalog NAME [--name TEXT | --number N] [--set CODE] [--limit N]
                    the catalog's cards with their keys (a plain price CSV names cards by key): by a name as
                    typed (closest names first, typos allowed), a collector number, a set, or in key order;
                    20 by default, at most 1000
  loupe catalog delete --catalog NAME [--dry-run | --yes]   the catalog and all imported into it (cards, sets, prices, reference artworks)
  loupe prices import --file F --catalog NAME [--restore-deleted]
                    a price CSV (may be gzipped) in a known layout: PSA auction prices, TCGplayer 3-day
                    history or daily snapshots, MTGO tix, MTG daily USD, or a plain CSV with the columns
                    card, date, price, currency[, grade, company, source] (docs/prices.md); rows naming
                    several candidate cards or a card the catalog lacks are skipped and counted; sales
                    deleted with prices delete --price are skipped too, unless --restore-deleted
  loupe prices delete --catalog NAME --card KEY [--date YYYY-MM-DD] [--source S] [--price P] [--currency C] [--graded yes|no] [--dry-run | --yes]
                    a card's prices matching every filter given (all of them with none): a wrong sale
                    taken out; the source in any case; answers how many went and how many are left; a
                    sale named by --price is remembered, so importing its file again does not bring it back
  loupe models add <dir> [--name N] [--no-activate]
  loupe models list
  loupe models activate --name N
  loupe models deactivate
  loupe models remove --name N [--dry-run | --yes]

Each command prints exactly one JSON line on stdout. Errors go to stderr with exit code 1 (2 for usage).
A command that erases (those with --dry-run; catalog import with --remove-missing) answers with --dry-run what it
would remove, removing nothing; at a terminal it shows that and asks before it erases, unless --yes; in a script
(stdin not a terminal) it acts at once.`;

class UsageError extends Error {
  /** The command whose usage lines follow the message (all of them when none). */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** A command's name from the words typed: `migrate`, `backup`, `worker` and `move-to-postgres` are one word, the rest two. */
const singleCommands = ['migrate', 'backup', 'worker', 'move-to-postgres'];
const commandOf = (words: readonly string[]): { command: string; rest: string[] } => {
  const single = singleCommands.includes(words[0] ?? '');
  return { command: single ? words[0]! : words.slice(0, 2).join(' '), rest: words.slice(single ? 1 : 2) };
};

/** Each command's lines of the usage (its first line and the indented ones after it). */
const usageBlocks = new Map<string, string[]>();
{
  let current: string[] | undefined;
  for (const line of usage.split('\n')) {
    const m = /^ {2}loupe ([a-z-]+)(?: ([a-z-]+))?/.exec(line);
    if (m) {
      const name = commandOf(m[2] ? [m[1]!, m[2]] : [m[1]!]).command;
      current = usageBlocks.get(name) ?? [];
      usageBlocks.set(name, current);
      current.push(line);
    } else if (current && /^ {4,}\S/.test(line)) {
      current.push(line);
    } else {
      current = undefined;
    }
  }
}

/** This checkout's release, from its package.json. */
const packageVersion = (): string => (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The options a command takes: those its usage names, and the aliases `run` reads. */
/**
 * The options a command's one word may stand for (`loupe token revoke ID`, `loupe flow show NAME`): a word is taken
 * only where none of them is given. `services enable|disable` take their list as words.
 */
const POSITIONAL: Record<string, readonly string[]> = {
  'token revoke': ['token', 'id'],
  'token delete': ['token', 'id'],
  'credits add': ['amount', 'credits'],
  'collection show': ['collection', 'id'],
  'collection delete': ['collection', 'id'],
  'collection compact': ['collection', 'id'],
  'request delete': ['request'],
  'workspace delete': ['workspace', 'id'],
  'flow create': ['file'],
  'flow show': ['name'],
  'flow delete': ['name'],
  'catalog images': ['dir'],
  'catalog delete': ['catalog'],
  'prices delete': ['card'],
  'prices import': ['file'],
  'models add': [],
  'models activate': ['name'],
  'models remove': ['name'],
};

/**
 * A word after a command that it does not take: refused, not ignored (h109: `token revoke --id $A $B` revoked one
 * token of two, `account create --name $NAME` with `Card Shop` made "Card", both exit 0).
 */
function unexpectedWord(command: string, values: Values, rest: readonly string[]): string | undefined {
  const list = command === 'services enable' || command === 'services disable';
  const takes = list ? (values.services === undefined ? Infinity : 0) : command in POSITIONAL && (POSITIONAL[command]!.length === 0 || POSITIONAL[command]!.every((k) => values[k as keyof Values] === undefined)) ? 1 : 0;
  return rest.length > takes ? rest[takes] : undefined;
}

/** An option typed twice: the parser keeps the last (`--account A --account B` acted on B), so it is refused (h109). */
function repeatedOption(argv: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const a of argv) {
    if (a === '--') break;
    const m = /^--([a-z-]+)(=|$)/.exec(a);
    if (!m) continue;
    if (seen.has(m[1]!)) return `--${m[1]}`;
    seen.add(m[1]!);
  }
  return undefined;
}

function optionsOf(command: string): Set<string> {
  const flags = new Set((usageBlocks.get(command) ?? []).flatMap((l) => [...l.matchAll(/--([a-z-]+)/g)].map((m) => m[1]!)));
  const aliases: Record<string, string[]> = { 'credits add': ['credits'], 'collection show': ['id'], 'collection delete': ['id'], 'collection compact': ['id'], 'workspace delete': ['id'] };
  for (const a of aliases[command] ?? []) flags.add(a);
  flags.add('help');
  return flags;
}

/** The usage a usage error is followed by: the command's own lines, or all of it. */
const usageFor = (command?: string) => {
  // a group's name (`token`) gives the lines of each of its commands
  const group = command && !usageBlocks.has(command) ? [...usageBlocks].filter(([name]) => name.startsWith(`${command} `)).flatMap(([, l]) => l) : [];
  const block = command ? (usageBlocks.get(command) ?? (group.length ? group : undefined)) : undefined;
  return block ? `${block.join('\n')}\n\n(loupe --help lists every command)` : usage;
};

const options = {
  to: { type: 'string' },
  name: { type: 'string' },
  credits: { type: 'string' },
  amount: { type: 'string' },
  services: { type: 'string' },
  account: { type: 'string' },
  token: { type: 'string' },
  id: { type: 'string' },
  type: { type: 'string' },
  collection: { type: 'string' },
  'product-field': { type: 'string' },
  capacity: { type: 'string' },
  'no-activate': { type: 'boolean' },
  decode: { type: 'boolean' },
  'remove-missing': { type: 'boolean' },
  'restore-deleted': { type: 'boolean' },
  force: { type: 'boolean' },
  request: { type: 'string' },
  workspace: { type: 'string' },
  file: { type: 'string' },
  kind: { type: 'string' },
  cards: { type: 'string' },
  sets: { type: 'string' },
  csv: { type: 'string' },
  catalog: { type: 'string' },
  map: { type: 'string' },
  dir: { type: 'string' },
  match: { type: 'string' },
  set: { type: 'string' },
  number: { type: 'string' },
  limit: { type: 'string' },
  card: { type: 'string' },
  date: { type: 'string' },
  source: { type: 'string' },
  price: { type: 'string' },
  currency: { type: 'string' },
  graded: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing --${flag}`);
  return value;
}

function integer(value: string, flag: string): number {
  const n = Number(value);
  // beyond 2^53 the text would be rounded, silently: a 20-digit amount added nothing
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new UsageError(`--${flag} must be an integer of at most 15 digits, got "${value}"`);
  return n;
}

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean };

/** On stderr, what an erasure could not remove from this process's media folder, and where it goes instead. */
function sayFilesNotRemoved(io: CliIo, what: 'account' | 'workspace', erased: { files_not_found: number; files_left?: number }): void {
  // the rows named files this folder does not hold: another LOUPE_DATA_DIR than the server's (they were counted
  // removed and left on the server's disk, still served by links handed out, h100)
  if (erased.files_not_found > 0) {
    io.err(`loupe: ${erased.files_not_found} of the files the ${what}'s rows named were not in ${path.join(path.resolve(loadConfig(io.env).dataDir), 'media')}: if the server's LOUPE_DATA_DIR is another folder, its sweep removes them there within 10 minutes (they stay listed for it); if it is this one, they were gone already\n`);
  }
  if (erased.files_left) io.err(`loupe: ${erased.files_left} of the ${what}'s files could not be removed now (a read-only or failing disk): the rows naming them are erased, and the server's sweep removes the files once it can\n`);
}

/**
 * A flow file read and named before the database is opened: a file that is not there, not JSON or names no flow made
 * the deployment's new database first (`flow create` may make one), then failed.
 */
async function readFlowFile(file: string, nameOption: string | undefined): Promise<{ name: string; definition: unknown }> {
  let definition: unknown;
  try {
    definition = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  const name = nameOption ?? (definition as { name?: unknown } | null)?.name;
  if (typeof name !== 'string') throw new UsageError('name the flow with --name or a "name" field in the file', 'flow create');
  return { name, definition };
}

/**
 * The commands that erase data. Each takes --dry-run (what it would remove, in its answer's words, with `"dry_run":
 * true`; nothing removed) and --yes; at a terminal (io.confirm) without either it shows that and asks first. In a script
 * (stdin not a terminal) it acts at once, as before: a refusal without --yes would have broken operators' cron lines
 * and scripts, and the tests', which call these commands without it (h355; docs/cli.md "Erasing").
 */
const ERASING = new Set(['account delete', 'workspace delete', 'token delete', 'collection delete', 'request delete', 'flow delete', 'catalog delete', 'prices delete', 'models remove']);

/** The question before an erasure was answered no (or with Ctrl-C or Ctrl-D): nothing was removed. */
class NotConfirmed extends Error {}

/**
 * Before an erasing command: with --dry-run its answer (what `plan` reads, nothing changed); at a terminal without --yes,
 * the plan shown on stderr and the question asked (NotConfirmed when not answered yes); else nothing, and it acts.
 */
async function beforeErasure(command: string, values: Values, io: CliIo, plan: () => Promise<object>): Promise<object | undefined> {
  const dryRun = values['dry-run'] === true;
  if (!dryRun && (values.yes === true || !io.confirm)) return undefined;
  const what = await plan();
  if (dryRun) return { dry_run: true, ...what };
  io.err(`loupe: ${command} removes ${JSON.stringify(what)}
`);
  if (!(await io.confirm!('loupe: go on? [y/N] '))) throw new NotConfirmed();
  return undefined;
}

/** What an erasing command of the database would remove, read and not changed: the answer it would give, and more where it helps. */
async function erasurePlan(services: Services, command: string, values: Values, rest: string[]): Promise<object> {
  switch (command) {
    case 'account delete':
      return services.erasure.plan(usageFirst['account delete'](values));
    case 'workspace delete':
      return services.erasure.planWorkspace(usageFirst['workspace delete'](values, rest));
    case 'token delete':
      return { deleted: true, ...(await services.accounts.tokenToDelete(usageFirst['token delete'](values, rest))) };
    case 'collection delete': {
      const c = describeCollection(await services.collections.get(usageFirst['collection delete'](values, rest)));
      const { files, files_not_found } = await services.collections.deletePlan(c.collection_id);
      return { deleted: c.collection_id, files, files_not_found, account: c.account, type: c.type, name: c.name, records: c.records };
    }
    case 'request delete':
      return services.requestDeletion(usageFirst['request delete'](values, rest));
    case 'flow delete': {
      const name = usageFirst['flow delete'](values, rest);
      if (!(await services.flows.list()).some((f) => f.name === name)) throw new ServiceError(404, 'not_found', `Flow ${name} not found.`);
      return { deleted: name };
    }
    case 'catalog delete':
      return services.catalogs.delete(usageFirst['catalog delete'](values, rest), { dryRun: true });
    case 'prices delete':
      return services.catalogs.deletePrices(usageFirst['prices delete'](values, rest), { dryRun: true });
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function run(services: Services, command: string, values: Values, rest: string[], io: CliIo, stop?: StopState, flow?: { name: string; definition: unknown }): Promise<unknown> {
  const { accounts } = services;
  if (ERASING.has(command)) {
    const dryRun = await beforeErasure(command, values, io, () => erasurePlan(services, command, values, rest));
    if (dryRun) return dryRun;
  }
  switch (command) {
    case 'account create': {
      const { name, credits, services: list } = usageFirst['account create'](values);
      return accounts.createAccount({ name, credits: credits ?? loadConfig(io.env).defaultCredits, ...(list !== undefined ? { services: list } : {}) });
    }
    case 'account list':
      return { accounts: (await accounts.listAccounts()).map(snakeKeys) };
    case 'account show': {
      const id = usageFirst['account show'](values);
      return { ...snakeKeys(await accounts.getAccount(id)), workspaces: (await accounts.listWorkspaces(id)).map(snakeKeys) };
    }
    case 'account delete': {
      const erased = await services.erasure.erase(usageFirst['account delete'](values));
      sayFilesNotRemoved(io, 'account', erased);
      if (erased.left_in?.length) {
        io.err(`loupe: the account is erased from PostgreSQL, but ${erased.left_in.length} file${erased.left_in.length > 1 ? 's' : ''} that \`loupe move-to-postgres\` left in the data folder still hold${erased.left_in.length > 1 ? '' : 's'} it as it was at the move (${erased.left_in.slice(0, 3).join(', ')}${erased.left_in.length > 3 ? ', …' : ''}): remove them (docs/operations.md "Moving to PostgreSQL")\n`);
      }
      return erased;
    }
    case 'workspace add':
      return accounts.addWorkspace(...usageFirst['workspace add'](values));
    case 'workspace list':
      return { workspaces: (await accounts.listWorkspaces(usageFirst['workspace list'](values))).map(snakeKeys) };
    case 'workspace delete': {
      const erased = await services.erasure.eraseWorkspace(usageFirst['workspace delete'](values, rest));
      sayFilesNotRemoved(io, 'workspace', erased);
      return erased;
    }
    case 'token add':
      return accounts.addToken(...usageFirst['token add'](values));
    case 'token list':
      return accounts.listTokens(usageFirst['token list'](values));
    case 'token revoke':
      return accounts.revokeToken(usageFirst['token revoke'](values, rest));
    case 'token delete':
      return accounts.deleteToken(usageFirst['token delete'](values, rest));
    case 'credits add':
      return accounts.addCredits(...usageFirst['credits add'](values, rest));
    case 'services enable':
    case 'services disable':
      return accounts.setServiceState(...usageFirst[command](values, rest), command === 'services enable');
    case 'collection create': {
      const created = await services.collections.create(usageFirst['collection create'](values));
      return { collection_id: created.id };
    }
    case 'collection list': {
      const collections = (await services.collections.list(values.account)).map(describeCollection);
      // PostgreSQL: whether the collections' indexes may fill its lock table (h369), where an operator lists them
      const budget = await services.collections.lockBudget();
      return { collections, ...(budget ? { postgres_lock_table: describeLockBudget(budget) } : {}) };
    }
    case 'collection show':
      return describeCollection(await services.collections.get(usageFirst['collection show'](values, rest)));
    case 'collection delete': {
      const deleted = await services.collections.delete(usageFirst['collection delete'](values, rest));
      await flushErased(services.store);
      return deleted;
    }
    case 'collection compact': {
      const compacted = await services.collections.compact(usageFirst['collection compact'](values, rest));
      await flushErased(services.store);
      return compacted;
    }
    case 'migrate':
      return { migrated: true, applied: services.store.migrated ?? [] };
    case 'request delete': {
      const deleted = await services.deleteRequest(usageFirst['request delete'](values, rest));
      await flushErased(services.store);
      return deleted;
    }
    case 'media check':
      return services.mediaAudit({ decode: values.decode === true });
    case 'flow create': {
      const { name, definition } = flow ?? (await readFlowFile(usageFirst['flow create'](values, rest), values.name));
      return services.flows.put(name, definition);
    }
    case 'flow list':
      return { flows: await services.flows.list() };
    case 'flow show': {
      const name = usageFirst['flow show'](values, rest);
      const flow = (await services.flows.list()).find((f) => f.name === name);
      if (!flow) throw new ServiceError(404, 'not_found', `Flow ${name} not found.`);
      return flow;
    }
    case 'flow delete': {
      const name = usageFirst['flow delete'](values, rest);
      if (!(await services.flows.delete(name))) throw new ServiceError(404, 'not_found', `Flow ${name} not found.`);
      return { deleted: name };
    }
    case 'webhook resend': {
      const account = await accounts.getAccount(usageFirst['webhook resend'](values));
      return { account: account.id, ...(await services.requests.resendFailedWebhooks(account.id)) };
    }
    case 'webhook-secret show':
    case 'webhook-secret rotate': {
      const account = await accounts.getAccount(usageFirst[command](values));
      const secret = command === 'webhook-secret show' ? await services.requests.webhookSecret(account.id) : await services.requests.rotateWebhookSecret(account.id);
      return { account: account.id, webhook_secret: secret };
    }
    case 'catalog import':
      return importCatalog(services, values, io, stop);
    case 'catalog list':
      return services.catalogs.list();
    case 'catalog cards':
      return services.catalogs.findCards(usageFirst['catalog cards'](values));
    case 'catalog images': {
      const request = usageFirst['catalog images'](values, rest);
      let last = 0;
      return services.catalogs.attachImages(request, (p) => {
        stopPoint(stop);
        if (Date.now() - last < 1000 && p.done < p.total) return;
        last = Date.now();
        io.err(`loupe: catalog ${request.catalog}: images ${p.done} of ${p.total}\n`);
      });
    }
    case 'catalog delete':
      return services.catalogs.delete(usageFirst['catalog delete'](values, rest));
    case 'prices delete':
      return services.catalogs.deletePrices(usageFirst['prices delete'](values, rest));
    case 'prices import': {
      const request = usageFirst['prices import'](values, rest);
      return services.catalogs.importPrices(request, progressLines(`prices ${request.catalog}`, io, stop));
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** `catalog cards`' query, its options' forms checked (usageFirst). */
function catalogCardsQuery(values: Values): { catalog: string; name?: string | undefined; number?: string | undefined; setCode?: string | undefined; limit: number } {
  const limit = values.limit !== undefined ? integer(values.limit, 'limit') : 20;
  if (limit < 1 || limit > 1000) throw new UsageError(`--limit must be from 1 to 1000, got ${limit}`);
  if (values.name !== undefined && values.number !== undefined) throw new UsageError('give --name or --number, not both');
  if (values.number === '' || values.name === '') throw new UsageError(`--${values.name === '' ? 'name' : 'number'} is empty`);
  return { catalog: need(values.catalog, 'catalog'), name: values.name, number: values.number, setCode: values.set, limit };
}

/** `catalog images`' request, its options' forms checked (usageFirst). */
function catalogImagesRequest(values: Values, rest: readonly string[]): { catalog: string; dir: string; match: MatchMode; setCode: string | undefined } {
  const match = values.match ?? 'id';
  if (!(MATCH_MODES as readonly string[]).includes(match)) throw new UsageError(`--match must be one of ${MATCH_MODES.join(', ')}, not "${match}"`);
  return { catalog: need(values.catalog, 'catalog'), dir: need(values.dir ?? rest[0], 'dir'), match: match as MatchMode, setCode: values.set };
}

/** A day written YYYY-MM-DD that the calendar has (not 2020-02-30, which Date would roll into March). */
function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const t = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().startsWith(text);
}

/** `prices delete`'s request, its options' forms checked (usageFirst). */
function pricesDeleteRequest(values: Values, rest: readonly string[]) {
  const price = values.price === undefined ? undefined : Number(values.price);
  if (price !== undefined && !/^\s*\d+(\.\d+)?\s*$/.test(values.price!)) throw new UsageError(`--price must be a price like 12.50, not "${values.price}"`);
  if (values.graded !== undefined && !['yes', 'no'].includes(values.graded)) throw new UsageError(`--graded is yes or no, not "${values.graded}"`);
  // an option's form is the usage's (exit 2), as --price's is: these were exit 1 (h194)
  // a day the calendar has: 2021-02-29 passed the pattern here and was the service's exit 1 (h349)
  if (values.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) throw new UsageError(`--date must be a day written YYYY-MM-DD, not "${values.date}"`);
  if (values.date !== undefined && !isCalendarDay(values.date)) throw new UsageError(`--date is not a day of the calendar: "${values.date}"`);
  if (values.currency !== undefined && !/^[A-Za-z]{3}$/.test(values.currency)) throw new UsageError(`--currency must be a three-letter code such as USD, not "${values.currency}"`);
  return { catalog: need(values.catalog, 'catalog'), card: need(values.card ?? rest[0], 'card'), date: values.date, source: values.source, price, currency: values.currency, graded: values.graded === undefined ? undefined : values.graded === 'yes' };
}

/** An unknown service is a mistake in what was typed (h272: it was exit 1, as a failure; a usage slip is exit 2). */
function servicesOf(list: string): string[] {
  try {
    return parseServices(list);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The options that name a row by its UUID, and the commands whose one word does. */
const ID_OPTIONS = ['account', 'collection', 'id', 'request', 'workspace'] as const;
const ID_WORDS = new Set(['token revoke', 'token delete', 'collection show', 'collection delete', 'collection compact', 'request delete', 'workspace delete']);

/**
 * A UUID typed in capitals (copied from a tool that prints them so) in the form the database keeps: on SQLite
 * `account show --account 2D84…` was "not found" and `collection list --account 2D84…` answered an empty list, exit 0,
 * where PostgreSQL's uuid columns found them (h349); the collection, request and workspace services already did this.
 */
function canonicalIds(command: string, values: { -readonly [K in keyof Values]: Values[K] }, rest: string[]): void {
  for (const k of ID_OPTIONS) {
    const v = values[k];
    if (typeof v === 'string' && isUuid(v)) values[k] = v.toLowerCase();
  }
  if (ID_WORDS.has(command) && rest[0] !== undefined && isUuid(rest[0])) rest[0] = rest[0].toLowerCase();
}

const accountOf = (values: Values): string => need(values.account, 'account');
/** The commands whose one word names what they act on (`collection show C`, `token revoke ID`): that word or an option. */
const collectionOf = (values: Values, rest: readonly string[]): string => need(values.collection ?? values.id ?? rest[0], 'collection');
const tokenOf = (values: Values, rest: readonly string[]): string => {
  if (values.token !== undefined && values.id !== undefined) throw new UsageError('give --token or --id, not both');
  return need(values.token ?? values.id ?? rest[0], 'token');
};
const servicesChange = (values: Values, rest: readonly string[]): [string, string[]] => [accountOf(values), servicesOf(need(values.services ?? rest.join(','), 'services'))];

/**
 * Each command's request built from what was typed, its required options and their forms checked: main calls the
 * command's entry before anything is opened, and run (and the models, backup and move branches) build their request
 * with the same entry, so a usage slip is exit 2 with the usage whether or not there is a database to open. With no
 * database (a mistyped LOUPE_DATA_DIR, a PostgreSQL down) `catalog cards --name … --number …` was exit 1, "no
 * database" (h322), and `account show` with no --account too (h324): the checks ran in run, after openServices. The
 * entries are pure (no file, setting or database read); what needs one (an account that exists, a balance's range: exit
 * 1) is told by run or the service, after the database is opened; a flow file is read before it (readFlowFile). A command with a
 * required option has its entry here, and run reads its options through it, never with need() of its own (the test
 * "a usage slip before the database" in test/cli.test.ts holds every such command of the usage to it).
 */
const usageFirst = {
  'account create': (values: Values) => ({
    name: need(values.name, 'name'),
    // the default is the configuration's (LOUPE_DEFAULT_CREDITS), read by run
    credits: values.credits !== undefined ? integer(values.credits, 'credits') : undefined,
    services: values.services !== undefined ? servicesOf(values.services) : undefined,
  }),
  'account show': accountOf,
  'account delete': accountOf,
  'workspace add': (values: Values): [string, string] => [accountOf(values), values.name ?? 'workspace'],
  'workspace list': accountOf,
  'workspace delete': (values: Values, rest: readonly string[]) => need(values.workspace ?? values.id ?? rest[0], 'workspace'),
  'token add': (values: Values): [string, string] => [accountOf(values), values.name ?? ''],
  'token list': accountOf,
  'token revoke': tokenOf,
  'token delete': tokenOf,
  'credits add': (values: Values, rest: readonly string[]): [string, number] => [accountOf(values), integer(need(values.amount ?? values.credits ?? rest[0], 'amount'), 'amount')],
  'services enable': servicesChange,
  'services disable': servicesChange,
  'collection create': (values: Values) => {
    // a type no collection has is a mistake in what was typed (h274: it was exit 1, as a failure)
    if (values.type !== undefined && !(collectionTypes as readonly string[]).includes(values.type)) throw new UsageError(`--type is one of ${collectionTypes.join(', ')}, not ${JSON.stringify(values.type.slice(0, 40))}`);
    const capacity = values.capacity !== undefined ? integer(values.capacity, 'capacity') : undefined;
    // a range the usage can tell, as --limit's is (h349: `--capacity 0` was exit 1, `--capacity x` exit 2)
    if (capacity !== undefined && (capacity < 1 || capacity > maxCapacity)) throw new UsageError(`--capacity must be an integer from 1 to ${maxCapacity}, got ${capacity}`);
    return { accountId: accountOf(values), type: need(values.type, 'type'), name: need(values.name, 'name'), productField: values['product-field'], capacity };
  },
  'collection show': collectionOf,
  'collection delete': collectionOf,
  'collection compact': collectionOf,
  'request delete': (values: Values, rest: readonly string[]) => need(values.request ?? rest[0], 'request'),
  'flow create': (values: Values, rest: readonly string[]) => need(values.file ?? rest[0], 'file'),
  'flow show': (values: Values, rest: readonly string[]) => need(values.name ?? rest[0], 'name'),
  'flow delete': (values: Values, rest: readonly string[]) => need(values.name ?? rest[0], 'name'),
  'webhook resend': accountOf,
  'webhook-secret show': accountOf,
  'webhook-secret rotate': accountOf,
  'catalog import': (values: Values) => importChecks(values),
  'catalog cards': catalogCardsQuery,
  'catalog images': catalogImagesRequest,
  'catalog delete': (values: Values, rest: readonly string[]) => need(values.catalog ?? rest[0], 'catalog'),
  'prices import': (values: Values, rest: readonly string[]) => ({ file: need(values.file ?? rest[0], 'file'), catalog: need(values.catalog, 'catalog'), restoreDeleted: values['restore-deleted'] === true }),
  'prices delete': pricesDeleteRequest,
  'models add': (values: Values, rest: readonly string[]) => {
    if (!rest[0]) throw new UsageError('missing the pack folder: loupe models add <dir>');
    return { dir: rest[0], options: { ...(values.name !== undefined ? { name: values.name } : {}), activate: !values['no-activate'] } };
  },
  'models activate': (values: Values, rest: readonly string[]) => need(values.name ?? rest[0], 'name'),
  'models remove': (values: Values, rest: readonly string[]) => need(values.name ?? rest[0], 'name'),
  backup: (values: Values, rest: readonly string[]) => {
    if (rest.length) throw new UsageError(`unexpected argument: ${rest[0]}`);
    if (typeof values.to !== 'string' || !values.to) throw new UsageError('backup needs --to DIR');
    return values.to;
  },
  'move-to-postgres': (values: Values, rest: readonly string[]) => {
    if (rest.length) throw new UsageError(`unexpected argument: ${rest[0]}`);
    if (typeof values.to !== 'string' || !values.to) throw new UsageError('move-to-postgres needs --to URL, the new PostgreSQL database (postgres://…)');
    if (!/^postgres(ql)?:\/\//.test(values.to)) throw new UsageError(`--to names a PostgreSQL database as a URL (postgres://user@host:port/name), not ${JSON.stringify(values.to)}`);
    return values.to;
  },
} satisfies Record<string, (values: Values, rest: readonly string[]) => unknown>;

/** The command's entry of usageFirst, if it has one. */
const usageFirstOf = (command: string): ((values: Values, rest: readonly string[]) => unknown) | undefined => (Object.hasOwn(usageFirst, command) ? usageFirst[command as keyof typeof usageFirst] : undefined);

/** A catalog import's kind and files, checked before anything is opened (a usage slip makes no database, h263). */
function catalogImportRequest(values: Values): { kind: (typeof CATALOG_KINDS)[number]; files: { cards?: string | undefined; sets?: string | undefined; csv?: string | undefined; file?: string | undefined } } {
  const kind = need(values.kind, 'kind');
  if (!isCatalogKind(kind)) throw new UsageError(`--kind must be one of ${CATALOG_KINDS.join(', ')}, not "${kind}"`);
  const files = { cards: values.cards, sets: values.sets, csv: values.csv, file: values.file };
  try {
    inputsOf(kind, files);
  } catch (err) {
    if (err instanceof CatalogRequestError) throw new UsageError(err.message);
    throw err;
  }
  return { kind, files };
}

/** A catalog import's options: its kind and files (catalogImportRequest), its column map, catalog name and --force. */
function importChecks(values: Values) {
  const { kind, files } = catalogImportRequest(values);
  if (values.map !== undefined && kind !== 'csv') throw new UsageError('--map is for --kind csv');
  let map: Map<string, string> | undefined;
  try {
    map = values.map !== undefined ? parseColumnMap(values.map) : undefined;
  } catch (err) {
    if (err instanceof ColumnMapError) throw new UsageError(err.message);
    throw err;
  }
  // `--catalog ""` is a usage slip (exit 2), as a missing value is
  if (values.catalog === '') throw new UsageError('--catalog needs a name');
  const catalog = values.catalog ?? kind;
  if (values.force && !values['remove-missing']) throw new UsageError('--force is for --remove-missing: it removes the cards the file lacks however many');
  // an import without it removes nothing, so there is nothing to say yes to
  if (values.yes && !values['remove-missing']) throw new UsageError('--yes is for --remove-missing: it removes the cards the file lacks without asking');
  return { kind, catalog, files, map, removeMissing: values['remove-missing'] === true, force: values.force === true, dryRun: values['dry-run'] === true };
}

async function importCatalog(services: Services, values: Values, io: CliIo, stop?: StopState): Promise<unknown> {
  const request = importChecks(values);
  // at a terminal, --remove-missing asks before it removes cards, as the erasing commands ask (beforeErasure): once the
  // file is staged, when what it removes is known, and before the transaction, so no lock waits on the answer
  const ask = request.removeMissing && !request.dryRun && values.yes !== true ? io.confirm : undefined;
  const confirm = ask
    ? async (planned: CatalogImportResult) => {
        if (!planned.cards.removed) return;
        io.err(`loupe: catalog import removes ${JSON.stringify({ catalog: planned.catalog, cards: planned.cards, removed: planned.removed })}\n`);
        if (!(await ask('loupe: go on? [y/N] '))) throw new NotConfirmed();
      }
    : undefined;
  return services.catalogs.import({ ...request, ...(confirm ? { confirm } : {}) }, progressLines(`catalog ${request.catalog}`, io, stop, request.dryRun ? 'staging' : 'writing'));
}

/** A command waiting on another process's database upgrade says so on stderr (h226: `loupe migrate` waited silently). */
const upgradeWait =
  (io: CliIo) =>
  (_level: string, message: string): void => {
    if (UPGRADE_WAIT_LINES.test(message)) io.err(`loupe: ${message}\n`);
  };

/** Progress of a long import on stderr: at most one line a second, and one when a phase starts. */
export function progressLines(label: string, io: Pick<CliIo, 'err'>, stop?: StopState, writing: 'writing' | 'staging' = 'writing'): (p: ImportProgress) => void {
  let last = 0;
  let phase = '';
  let printed = '';
  const count = (n: number) => n.toLocaleString('en-US');
  return (p) => {
    // reading is inside a stream's callbacks, where a throw would not reach the import: a stop then ends the process
    if (p.phase === 'write' && stop) {
      stop.writing = true;
      stopPoint(stop);
    }
    const now = Date.now();
    const key = p.phase === 'read' ? `read ${p.file}` : 'write';
    const finished = p.phase === 'read' ? p.bytes === p.size : p.written === p.total;
    if (key === phase && now - last < 1000 && !finished) return;
    phase = key;
    last = now;
    const line =
      p.phase === 'read'
        ? // the bytes are read ahead of the parser: a first line said "9 % (0 records)", as if stuck (h252)
          `reading ${p.file}: ${p.size > 0 ? Math.floor((100 * p.bytes) / p.size) : 100} %${p.records > 0 ? ` (${count(p.records)} record${p.records === 1 ? '' : 's'})` : ''}`
        : `${writing}: ${count(p.written)} of ${count(p.total)} row${p.total === 1 ? '' : 's'}`;
    // the last batch's line and the end's are one and the same: said once
    if (line === printed) return;
    printed = line;
    io.err(`loupe: ${label}: ${line}\n`);
  };
}

/** Model packs live in the data folder only: these commands never open the database. */
async function runModels(dataDir: string, command: string, values: Values, rest: string[], io: CliIo): Promise<unknown> {
  // Loaded here so the other commands do not load the ONNX runtime's native library.
  const { activatePack, deactivatePack, installPack, listPacks, removePack } = await import('./vision/clip/clip-pack.ts');
  if (ERASING.has(command)) {
    const dryRun = await beforeErasure(command, values, io, () => removePack(dataDir, usageFirst['models remove'](values, rest), { dryRun: true }));
    if (dryRun) return dryRun;
  }
  switch (command) {
    case 'models add': {
      const { dir, options: pack } = usageFirst['models add'](values, rest);
      return installPack(dir, dataDir, pack);
    }
    case 'models list':
      return listPacks(dataDir);
    case 'models activate':
      return activatePack(dataDir, usageFirst['models activate'](values, rest));
    case 'models deactivate':
      return deactivatePack(dataDir);
    case 'models remove':
      return removePack(dataDir, usageFirst['models remove'](values, rest));
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Where a run of the command reads its settings and writes: the process's own unless a caller (the tests) gives others. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
  /**
   * Calls `stop` on Ctrl-C or SIGTERM until the returned function is called: it answers `quit` to
   * end the process at once (exit 130), `wait` to let the command stop itself. A second signal quits.
   */
  onInterrupt?(stop: (signal: string) => 'quit' | 'wait'): () => void;
  /**
   * Asks a yes-or-no question (on stderr) and answers whether it was yes: given only where someone can answer (stdin
   * and stderr a terminal); without it an erasing command acts at once, as a script expects.
   */
  confirm?(question: string): Promise<boolean>;
}
let outWatched = false;
/** Whether standard output is /dev/null (where Node puts a closed fd 1, or a shell's `> /dev/null`). */
function stdoutGoesNowhere(): boolean {
  try {
    const out = fstatSync(1);
    const nul = statSync('/dev/null');
    return out.isCharacterDevice() && out.rdev === nul.rdev;
  } catch {
    return false;
  }
}

/** The terminal's answer to a question: yes for y or yes, no for anything else, Ctrl-C or Ctrl-D. */
function askAtTerminal(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    let answered = false;
    const done = (yes: boolean) => {
      if (answered) return;
      answered = true;
      rl.close();
      resolve(yes);
    };
    // readline takes Ctrl-C at a terminal as a key, not as the signal: said no, and the command exits 1 with nothing removed
    rl.on('SIGINT', () => {
      process.stderr.write('\n');
      done(false);
    });
    rl.on('close', () => done(false));
    rl.question(question, (answer) => done(/^y(es)?$/i.test(answer.trim())));
  });
}

const processIo: CliIo = {
  env: process.env,
  out: (t) => {
    // an answer that cannot be written (a closed pipe, a full disk, stdout closed) after the command was done: one line
    // and exit 3, not a stack trace and exit 1, so a wrapper retrying failures does not make a second account (h109)
    if (!outWatched) {
      outWatched = true;
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        process.stderr.write(`loupe: the answer could not be written (${err.code ?? err.message}): the command was done, its answer is lost\n`);
        process.exitCode = 3;
      });
    }
    process.stdout.write(t);
  },
  err: (t) => process.stderr.write(t),
  // only where someone can answer: stdin a terminal, and stderr one too (a question written to a log would wait unseen)
  ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: askAtTerminal } : {}),
  onInterrupt(stop) {
    let seen = false;
    const handler = (signal: NodeJS.Signals) => {
      if (seen || stop(signal) === 'quit') process.exit(130);
      seen = true;
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    // `npx loupe …` ended by a signal to npx alone: as the first SIGTERM, unless one came here already
    const unwatch = whenLauncherExits(() => seen || handler('SIGTERM'));
    return () => {
      unwatch();
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

/** The commands `run` answers (models and backup are answered beside it). */
const knownCommands = new Set(['account create', 'account list', 'account show', 'account delete', 'workspace add', 'workspace list', 'workspace delete', 'token add', 'token list', 'token revoke', 'token delete', 'credits add', 'services enable', 'services disable', 'collection create', 'collection list', 'collection show', 'collection delete', 'collection compact', 'migrate', 'flow create', 'flow list', 'flow show', 'flow delete', 'webhook-secret show', 'webhook-secret rotate', 'webhook resend', 'catalog import', 'catalog list', 'catalog cards', 'catalog images', 'catalog delete', 'prices import', 'prices delete', 'media check', 'request delete']);

/** The commands that may make a new database in an empty data folder: a deployment's first steps (docs/cli.md). */
const MAKES_DATABASE = new Set(['account create', 'catalog import', 'flow create']);

/**
 * The commands whose answer is about the media folder's files (an erasure or a request's deletion run elsewhere says
 * so in its counts and leaves the files to the server's sweep, h100).
 */
const MEDIA_COMMANDS = new Set(['media check']);

/** Imports write nothing until their last step, so a stop asked for between batches leaves the data as it was. */
const interruptible = new Set(['catalog import', 'prices import', 'catalog images']);

class Interrupted extends Error {}

/** A stop asked for by a signal, and whether the import has begun writing (before, the process may simply end). */
interface StopState {
  asked?: string;
  writing: boolean;
}

/** Throws where a long command may stop cleanly: between written batches (all of an import is undone). */
function stopPoint(stop: StopState | undefined): void {
  if (stop?.asked) throw new Interrupted(stop.asked);
}

/** One run of the command: its exit code (undefined for `worker`, which runs until a signal). bin/loupe.js calls it. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number | undefined> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    // the command's own usage, as for other usage errors (the words typed before the first option name it)
    const words = argv.slice(0, Math.max(0, argv.findIndex((a) => a.startsWith('-')))).filter((a) => !a.startsWith('-'));
    const command = words.length ? commandOf(words).command : undefined;
    let message = (err as Error).message;
    // a mistyped option: named, with the command's nearest one (Node's own words told to quote it as a positional, h113)
    const unknown = /^Unknown option '(--[a-z0-9-]+)'/i.exec(message);
    if (unknown) {
      const typed = unknown[1]!.slice(2);
      const near = command ? [...optionsOf(command)].filter((o) => o !== 'help').sort((a, b) => editDistance(typed, a) - editDistance(typed, b))[0] : undefined;
      message = `${unknown[1]} is not an option${command ? ` of "${command}"` : ''}${near && editDistance(typed, near) <= 2 ? ` (did you mean --${near}?)` : ''}`;
    }
    // a one-dash word (`-name x`, `-f`): Node's words told to put it after `--` as a positional (h349)
    const short = /^Unknown option '-([a-zA-Z0-9])'/.exec(message);
    if (short) {
      const word = argv.find((a) => /^-[^-]/.test(a) && a[1] === short[1]) ?? `-${short[1]}`;
      const long = word.slice(1).split('=')[0]!;
      const known = command ? optionsOf(command).has(long) : (Object.hasOwn(options, long) as boolean);
      message = `${word.split('=')[0]} is not an option${command ? ` of "${command}"` : ''}: options are written with two dashes${known ? ` (did you mean --${long}?)` : ''}`;
    }
    // `--amount -5`: the parser's own words told to write `--amount=-XYZ`; say it with the value typed
    const ambiguous = /^Option '(--[a-z-]+)[^']*' argument is ambiguous/.exec(message);
    const at = ambiguous ? argv.indexOf(ambiguous[1]!) : -1;
    if (ambiguous && at >= 0 && argv[at + 1] !== undefined) message = `${ambiguous[1]} ${argv[at + 1]}: a value that starts with "-" is written ${ambiguous[1]}=${argv[at + 1]}`;
    io.err(`loupe: ${message}\n\n${usageFor(command)}\n`);
    return 2;
  }
  const { values } = parsed;
  let { positionals } = parsed;
  // `loupe help [command]` is `loupe --help [command]`, as git and npm take it (h272: "unknown command help", exit 2)
  if (positionals[0] === 'help' && Object.keys(values).length === 0) {
    positionals = positionals.slice(1);
    values.help = true;
  }
  if (values.version) {
    // alone: beside a command it replaced it, exit 0 and nothing done (h194: `account delete … -v`, "verbose" by habit)
    if (positionals.length > 0 || Object.keys(values).length > 1) {
      io.err('loupe: --version (-v) is given alone: `loupe --version`; no command takes it (nothing was done)\n');
      return 2;
    }
    io.out(`loupe ${packageVersion()} (Node ${process.version})\n`);
    return 0;
  }
  if (values.help && positionals.length > 0) {
    const asked = commandOf(positionals).command;
    const lines = usageBlocks.get(asked) ?? [...usageBlocks].filter(([name]) => name.split(' ')[0] === positionals[0]).flatMap(([, l]) => l);
    if (lines.length) {
      io.out(`${lines.join('\n')}\n`);
      return 0;
    }
    // no such command: the usage is the error's text, as without --help (it was the answer, exit 0, h194)
    io.err(`loupe: unknown command "${positionals.join(' ').slice(0, 80)}"\n\n${usage}\n`);
    return 2;
  }
  if (values.help || positionals.length === 0) {
    // asked for, the usage is the answer (stdout); without a command it is the error's text (stderr, exit 2)
    if (values.help) io.out(`${usage}\n`);
    else io.err(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const { command, rest } = commandOf(positionals);
  canonicalIds(command, values, rest);
  // a token is shown once: with stdout closed (Node then gives it /dev/null) or sent there it was lost, exit 0 (h194)
  if ((command === 'account create' || command === 'token add') && io === processIo && stdoutGoesNowhere()) {
    io.err('loupe: stdout is closed or /dev/null: the new token, shown only once, will be lost (`loupe token add` makes another)\n');
  }
  const twice = repeatedOption(argv);
  if (twice) {
    io.err(`loupe: ${twice} is given twice: give it once\n\n${usageFor(knownCommands.has(command) || usageBlocks.has(command) ? command : undefined)}\n`);
    return 2;
  }
  if (command === 'worker') {
    // another command's option was ignored here (h109: `worker --account x` started)
    const given = Object.keys(values).filter((k) => k !== 'help');
    if (given.length) {
      io.err(`loupe: ${given.map((f) => `--${f}`).join(', ')} ${given.length > 1 ? 'are not options' : 'is not an option'} of "worker" (its settings are the environment's)\n`);
      return 2;
    }
    if (rest.length) {
      io.err(`loupe: unexpected argument: ${rest[0]} (worker takes none; its settings are the environment's)\n`);
      return 2;
    }
    // a worker on a mistyped folder polled a new, empty database and took none of the server's jobs (h113)
    let workerConfig;
    try {
      workerConfig = loadConfig(io.env);
    } catch (err) {
      io.err(`loupe: cannot start the worker: ${(err as Error).message}\n`);
      return 1;
    }
    // a worker would run the jobs of a restored copy checked with the background paused (h110)
    if (workerConfig.pauseBackground) {
      io.err('loupe: LOUPE_PAUSE_BACKGROUND is set: a worker runs only background work (jobs, webhooks, sweeps); start it without the setting\n');
      return 1;
    }
    let database: boolean;
    try {
      database = Boolean(workerConfig.databaseUrl) || present(sqliteFileOf(workerConfig.dataDir));
    } catch (err) {
      // a data folder this user may not read: one line, as other commands say it (h278: a stack trace)
      io.err(`loupe: ${(err as Error).message}\n`);
      return 1;
    }
    if (!database) {
      io.err(`loupe: no database in ${path.resolve(workerConfig.dataDir)}: a worker takes its jobs from the server's database. Set LOUPE_DATA_DIR to the server's data folder (or DATABASE_URL).\n`);
      return 1;
    }
    // Runs until a signal; it logs JSON lines instead of printing one result.
    const { runWorker } = await import('./worker.ts');
    try {
      await runWorker(io.env);
    } catch (err) {
      // a setting of the wrong form is one line, as for the server, not a stack trace
      io.err(`loupe: cannot start the worker: ${(err as Error).message}\n`);
      return 1;
    }
    return undefined;
  }
  let services: Services | undefined;
  let releaseFolder: (() => void) | undefined;
  try {
    // before any folder or database is touched: `loupe version` made an empty database in ./data
    if (!knownCommands.has(command) && positionals[0] !== 'models' && command !== 'backup' && command !== 'move-to-postgres') {
      // a group's name alone, or with a word it does not take: its subcommands (h274: `loupe token` was "unknown command")
      const subs = [...knownCommands].filter((c) => c.split(' ')[0] === positionals[0]).map((c) => c.split(' ')[1]!);
      if (subs.length) throw new UsageError(positionals.length === 1 ? `${positionals[0]} needs a subcommand: ${subs.join(', ')}` : `unknown command "${command}": ${positionals[0]} takes ${subs.join(', ')}`, positionals[0]);
      throw new UsageError(`unknown command "${command}"`);
    }
    // an option of another command was ignored (`account create --amount 5` made an account of the default credits)
    const allowed = optionsOf(command);
    const foreign = Object.keys(values).filter((k) => !allowed.has(k));
    if (foreign.length) throw new UsageError(`${foreign.map((f) => `--${f}`).join(', ')} ${foreign.length > 1 ? 'are not options' : 'is not an option'} of "${command}"`, command);
    // `--id=` is no id: a usage error, not "Active token not found" (h113)
    // spaces alone too (`--name "$UNSET "`): they were the service's "needs a non-empty name", exit 1 (h349)
    const blank = Object.entries(values).find(([, v]) => typeof v === 'string' && v.trim() === '');
    if (blank) throw new UsageError(`--${blank[0]} is empty: give it a value`, command);
    const stray = command === 'backup' || command === 'move-to-postgres' ? undefined : unexpectedWord(command, values, rest);
    if (stray !== undefined) throw new UsageError(`unexpected argument: ${stray} (a value with spaces is quoted: --name "Card Shop")`, command);
    // each command's required options and their forms, before any folder or database is touched (usageFirst)
    usageFirstOf(command)?.(values, rest);
    if (values['dry-run'] && values.yes) throw new UsageError('give --dry-run (show what would be removed) or --yes (remove without asking), not both', command);
    const flow = command === 'flow create' ? await readFlowFile(usageFirst['flow create'](values, rest), values.name) : undefined;
    const config = loadConfig(io.env);
    let result: unknown;
    if (positionals[0] === 'models') {
      // a mistyped folder listed no packs and exit 0 (h109)
      if (command !== 'models add' && !present(config.dataDir)) throw new Error(`no data folder ${path.resolve(config.dataDir)}: set LOUPE_DATA_DIR to the server's data folder`);
      result = await runModels(config.dataDir, command, values, rest, io);
    } else if (command === 'backup') {
      const to = usageFirst.backup(values, rest);
      if (config.databaseUrl) throw new Error('with PostgreSQL (DATABASE_URL), back up the database with pg_dump, and copy the media folder and LOUPE_MEDIA_SECRET (docs/operations.md "Backups")');
      result = await backupDataFolder(config.dataDir, to);
    } else if (command === 'move-to-postgres') {
      const to = usageFirst['move-to-postgres'](values, rest);
      // the source is the embedded database: with DATABASE_URL set, which of the two was meant is unclear
      if (config.databaseUrl) throw new Error('DATABASE_URL is set: the move reads the embedded database in LOUPE_DATA_DIR and writes the one --to names; unset DATABASE_URL for it');
      result = await moveToPostgres(config.dataDir, to, (line) => io.err(`loupe: ${line}\n`));
    } else {
      // a mistyped or unset LOUPE_DATA_DIR would make and answer from a new, empty database
      const fresh = !config.databaseUrl && !present(sqliteFileOf(config.dataDir));
      // only the commands that start a deployment make its database: a check or a change run from cron, where LOUPE_DATA_DIR
      // is unset, made ./data and answered `ok` from it (h109)
      // a dry run changes nothing, a new database included: it says what the import would make
      const makesDatabase = MAKES_DATABASE.has(command) && values['dry-run'] !== true;
      if (fresh && values['dry-run'] === true && MAKES_DATABASE.has(command)) throw new Error(`no database in ${path.resolve(config.dataDir)}: a dry run makes none (the import itself would make it, with a catalog of every card the file holds). Set LOUPE_DATA_DIR to the server's data folder (or DATABASE_URL) to see what it would change there.`);
      if (fresh && !makesDatabase && command !== 'migrate') throw new Error(`no database in ${path.resolve(config.dataDir)}: nothing to ${/(^| )(list|show|cards|check)$/.test(command) ? 'read' : 'change'}. Set LOUPE_DATA_DIR to the server's data folder (or DATABASE_URL).`);
      // an upgrade run on the wrong folder "migrated" a database it had just made (an operator's upgrade)
      if (fresh && command === 'migrate') throw new Error(`no database in ${path.resolve(config.dataDir)}: nothing to upgrade. Set LOUPE_DATA_DIR to the server's data folder (or DATABASE_URL); a new server makes its database when it starts.`);
      // with PostgreSQL the media folder is still the data folder's: a check from cron with LOUPE_DATA_DIR unset made
      // ./data and a new media secret, and reported every file missing (h110)
      if (config.databaseUrl && MEDIA_COMMANDS.has(command) && !present(path.join(config.dataDir, 'media'))) throw new Error(`no media folder in ${path.resolve(config.dataDir)}: set LOUPE_DATA_DIR to the server's data folder, where its media folder is`);
      if (fresh) io.err(`loupe: no database in ${path.resolve(config.dataDir)}: making a new, empty one (set LOUPE_DATA_DIR to the server's data folder if it is elsewhere)\n`);
      // only `migrate` upgrades a database an earlier release made (the server and workers do at start)
      // `migrate` makes the schema of an empty PostgreSQL database, as a first install does (README); a fresh SQLite
      // folder was refused above
      // an upgrade under a server of the old release still running on the folder: refused, as a second server is (h160:
      // it ran beside one, which went on serving until it noticed); held while it runs, so no server starts meanwhile
      let serving: Error | undefined;
      if (command === 'migrate' && !config.databaseUrl) {
        try {
          releaseFolder = claimDataFolder(config.dataDir);
        } catch (err) {
          if (!/^another Loupe server/.test((err as Error).message)) throw err;
          serving = new Error(`${(err as Error).message.replace(/ \(run several with PostgreSQL, DATABASE_URL\)$/, '')}; stop it before upgrading (docs/upgrades.md, "To upgrade")`);
        }
      }
      // a database with nothing to upgrade under its running server: nothing done, said so (a deploy script's migrate
      // beside a live, up-to-date server failed, h162)
      if (serving) {
        try {
          services = await openServices(config, { upgrade: false, create: false, log: upgradeWait(io) });
        } catch {
          throw serving;
        }
        io.out(`${JSON.stringify({ migrated: true, applied: [] })}\n`);
        return 0;
      }
      services = await openServices(config, { upgrade: command === 'migrate', create: makesDatabase || command === 'migrate', log: upgradeWait(io) });
      if (interruptible.has(command)) {
        // Killed by the signal's default while writing, an import left its staged rows for the next one to clear an hour later.
        const stop: StopState = { writing: command === 'catalog images' };
        const release = io.onInterrupt?.((signal) => {
          stop.asked = signal;
          if (!stop.writing) {
            io.err(`loupe: ${signal}: stopped while reading; nothing was imported\n`);
            return 'quit';
          }
          io.err(`loupe: ${signal}: stopping after this batch; nothing of this import will be kept (${signal} again to quit at once)\n`);
          return 'wait';
        });
        try {
          result = await run(services, command, values, rest, io, stop);
          // a signal that came during the last statement is heard now, not lost with the handler
          await betweenBatches();
        } finally {
          release?.();
        }
        if (stop.asked) io.err(`loupe: ${stop.asked} came as the import ended: it is complete\n`);
      } else {
        result = await run(services, command, values, rest, io, undefined, flow);
      }
    }
    io.out(`${JSON.stringify(result)}\n`);
    // a check that found problems fails, so cron tells it from a clean one without reading the answer (h109)
    if (command === 'media check' && (result as { ok?: boolean }).ok === false) return 1;
    return 0;
  } catch (err) {
    if (err instanceof Interrupted) {
      io.err(`loupe: stopped by ${err.message}: nothing was imported (${command === 'catalog images' ? 'no image attached' : 'the data is as it was'})\n`);
      return 130;
    }
    if (err instanceof NotConfirmed) {
      io.err('loupe: not confirmed: nothing was removed\n');
      return 1;
    }
    if (err instanceof UsageError) {
      io.err(`loupe: ${err.message}\n\n${usageFor(err.command ?? (knownCommands.has(command) || usageBlocks.has(command) ? command : undefined))}\n`);
      return 2;
    }
    io.err(`loupe: ${err instanceof ServiceError ? err.detail : storageMessage(err, io.env) ?? (err as Error).message}\n`);
    return 1;
  } finally {
    await services?.close();
    releaseFolder?.();
  }
}

/**
 * SQLite's own words for a disk or a file that failed said with the file and what to do, as the server says them (h267:
 * "database or disk is full", "attempt to write a readonly database" named no file, and read as the data being lost).
 */
function storageMessage(err: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const code = String((err as { code?: unknown }).code ?? '');
  if (!code.startsWith('SQLITE_')) return undefined;
  let file: string;
  try {
    const config = loadConfig(env);
    if (config.databaseUrl) return undefined;
    file = sqliteFileOf(path.resolve(config.dataDir));
  } catch {
    return undefined;
  }
  const said = (err as Error).message;
  if (code === 'SQLITE_FULL') return `the disk of the database ${file} is full (${said}): make room (docs/operations.md "Disk space"), then run the command again`;
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) return `the database ${file} cannot be written (${said}): check the data folder's owner, permissions and mount`;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return `the database ${file} is damaged (${said}): restore the last good backup (docs/operations.md "Backups")`;
  return undefined;
}

/**
 * A record's keys in the snake_case every other command prints (`created_at`, `token_id`): account and
 * workspace listings printed the store's camelCase (`createdAt`, `isDefault`), which tripped scripts using jq.
 */
function snakeKeys<T extends object>(record: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

/** Whether this file is the script Node was started with, not a module another imported (bin/loupe.js, the tests). */
function runAsScript(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

// `npx tsx src/cli.ts account create …` (the server's own file run as `npm start` runs src/server.ts) printed nothing
// and exited 0, which reads as success with no token made (h310); bin/loupe.js calls main itself.
if (runAsScript()) process.exitCode = await main(process.argv.slice(2));
