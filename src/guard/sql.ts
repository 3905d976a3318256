/**
 * SQL typed into a database client (psql, mysql, sqlite3, …) or given to one with `-c`/`-e`:
 * statements that throw data away. String literals, quoted identifiers and comments are removed
 * first, so `SELECT 'drop table x'` or `-- truncate later` do not count. Test, scratch and temporary
 * objects (`DROP TABLE tmp_import`, `DROP DATABASE myapp_test`) are there to be thrown away.
 */
import { isThrowawayName } from "./throwaway-databases.ts";

/** Database clients whose typed lines (and `-c`/`-e` arguments) are SQL. */
export const DATABASE_CLIENTS = new Set([
  ...["psql", "mysql", "mariadb", "sqlite3", "sqlite", "duckdb", "clickhouse-client"],
  ...["cockroach", "cqlsh", "mysqlsh", "pgcli", "mycli", "litecli"],
]);

/** Prompts those clients draw, for sessions where the foreground program cannot be seen (SSH). */
export const DATABASE_PROMPT =
  /(^|\s)([\w-]+[=-][#>]|mysql>|MariaDB \[[^\]]*\]>|sqlite>|cqlsh(:\w+)?>|[\w-]+@[\w.-]+:\d+\/[\w-]*>)\s*$/;

const DESTRUCTIVE = [
  { re: /\bdrop\s+(database|schema|keyspace)\b/, why: "DROP DATABASE/SCHEMA/KEYSPACE deletes a whole database" },
  { re: /\bdrop\s+table\b/, why: "DROP TABLE deletes a table and its data" },
  { re: /\btruncate\b(\s+table)?\s+[\w"`.[]/, why: "TRUNCATE empties a table" },
  {
    re: /\bdrop\s+(user|role|owned\s+by)\b/,
    why: "DROP USER/ROLE takes an account away (and with OWNED BY, its data)",
  },
  {
    re: /\balter\s+table\b[^;]*\bdrop\s+(column\b|(?!constraint|index|default|not\b))/,
    why: "ALTER TABLE … DROP COLUMN deletes a column's data",
  },
];

/** Removes literals and comments: what remains are keywords and names. */
function sqlSkeleton(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""')
    .replace(/`[^`]*`/g, "``")
    .replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, "''")
    .toLowerCase();
}

/** A DELETE of every row, or an UPDATE that overwrites every row: no WHERE clause in its statement. */
const EVERY_ROW = /^\s*delete\s+from\s+[\w"`.[\]]+\s*(where\s+(1\s*=\s*1|true|1|''\s*=\s*'')\s*)?$/;
const EVERY_ROW_UPDATE =
  /^\s*update\s+[\w"`.[\]]+\s+set\s((?![\s\S]*\bwhere\b)|[\s\S]*\bwhere\s+(1\s*=\s*1|true|1)\s*$)/;

/** The objects a statement drops, truncates or empties: `DROP TABLE IF EXISTS a, b` → a, b. */
const TARGETS = new RegExp(
  String.raw`\b(?:drop\s+(?:database|schema|keyspace|table)(?:\s+if\s+exists)?|truncate(?:\s+table)?|` +
    String.raw`delete\s+from|update)\s+([\w"\`.[\], ]+?)(?=\s*(?:;|$|\bcascade\b|\bset\b|\bwhere\b))`,
  "g",
);

/** Do the statements only throw away test, scratch or temporary objects (`DROP TABLE tmp_import`)? */
function onlyThrowaway(skeleton: string): boolean {
  const names = [...skeleton.matchAll(TARGETS)].flatMap((m) => m[1]!.split(",").map((n) => n.trim()));
  return names.length > 0 && names.every((n) => n !== "" && isThrowawayName(n));
}

/** Why the SQL text destroys data, or null. */
export function destructiveSql(sql: string): string | null {
  const skeleton = sqlSkeleton(sql);
  if (onlyThrowaway(skeleton)) return null;
  for (const d of DESTRUCTIVE) if (d.re.test(skeleton)) return d.why;
  if (skeleton.split(";").some((statement) => EVERY_ROW.test(statement))) {
    return "DELETE without WHERE deletes every row of the table";
  }
  if (skeleton.split(";").some((statement) => EVERY_ROW_UPDATE.test(statement))) {
    return "UPDATE without WHERE overwrites every row of the table";
  }
  return null;
}
