/**
 * Databases made to be thrown away — a test suite's, a scratch one, a temporary table — named as
 * such: `dropdb myapp_test`, `psql -d scratch -c 'DROP TABLE x'`, `DROP TABLE tmp_import`,
 * `sqlite3 /tmp/x.db`, `rails db:drop RAILS_ENV=test`. Emptying one is what it is for; the
 * datastore rules let these pass and judge every other name as a database someone needs.
 */

/** A name that says it is for tests, scratch work or a moment: `test`, `myapp_test`, `tmp_users`, `scratch`. */
const THROWAWAY = new RegExp(
  String.raw`^(test|tests|testing|scratch|tmp|temp|sandbox|playground)([_-]\w*)?$|` +
    String.raw`[_-](test|tests|testing|scratch|tmp|temp|sandbox)$`,
  "i",
);

/** Is the database, table or file named by `word` (quotes, a schema prefix or a path aside) a throwaway one? */
export function isThrowawayName(word: string): boolean {
  const name = word.replace(/^["'`[]|["'`\]]$/g, "");
  if (name === ":memory:" || /^\/(tmp|var\/tmp|dev\/shm)\//.test(name)) return true;
  const base = name.slice(name.lastIndexOf("/") + 1).replace(/\.(db|sqlite3?|db3|duckdb)$/, "");
  const last = base.slice(base.lastIndexOf(".") + 1);
  return THROWAWAY.test(last) || THROWAWAY.test(base);
}

/** Client options that name the database (psql -d, mysql -D, --dbname, --database). */
const DATABASE_OPTION = /^(-d|-D|--dbname|--database)$/;
/** Client options that take a value, so the value is not taken for the database's name. */
const VALUED = /^(-[hpUuPcefoTvFRCSWw]|--(host|port|user|username|password|command|file|execute|eval|output|set))$/;

/**
 * The database a client connects to: `-d NAME`, `--dbname=NAME`, a URI's path, the first operand
 * (psql, mysql, mongosh), or sqlite3's file. Null when the line does not say.
 */
export function clientDatabase(args: string[]): string | null {
  for (const [i, a] of args.entries()) {
    const eq = /^--(dbname|database)=(.+)$/.exec(a);
    if (eq) return eq[2]!;
    if (DATABASE_OPTION.test(a)) return args[i + 1] ?? null;
  }
  const operand = args.find((a, i) => !a.startsWith("-") && !VALUED.test(args[i - 1] ?? ""));
  if (operand === undefined) return null;
  const uri = /^[a-z+]+:\/\/[^/]*\/([^?]+)/.exec(operand);
  return uri ? uri[1]! : operand;
}

/** `RAILS_ENV=test`, `--settings=app.settings.test`, `-e test`: a framework told to use its test or dev database. */
export function throwawayEnvironment(words: string[]): boolean {
  return words.some(
    (w, i) =>
      /^(RAILS_ENV|RACK_ENV|NODE_ENV|MIX_ENV|APP_ENV|FLASK_ENV)=(test|testing|development|dev)$/.test(w) ||
      /^--(settings|env|environment)=\S*\b(test|testing|development|dev)$/.test(w) ||
      (/^(-e|--env|--environment)$/.test(words[i - 1] ?? "") && /^(test|testing|development|dev)$/.test(w)),
  );
}
