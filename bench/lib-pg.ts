import pg from 'pg';

/**
 * One statement on a connection of its own (CREATE / DROP DATABASE, which no pool's transaction may run; a catalog
 * read): the benches that make a database of their own beside the one DATABASE_URL names.
 */
export async function pgAdmin(statement: string, url = process.env.DATABASE_URL): Promise<pg.QueryResult> {
  if (!url) throw new Error('this bench needs DATABASE_URL (a PostgreSQL server where it may create a database)');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(statement);
  } finally {
    await c.end();
  }
}

/** DATABASE_URL with another database's name. */
export function databaseNamed(name: string, url = process.env.DATABASE_URL): string {
  if (!url) throw new Error('this bench needs DATABASE_URL (a PostgreSQL server where it may create a database)');
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
