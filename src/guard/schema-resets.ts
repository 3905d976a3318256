/**
 * Frameworks' and migration tools' commands that drop or empty the whole database they are set
 * up for, for the datastore-wipe rule: `rails db:drop`/`db:reset`, `manage.py flush`, `artisan
 * migrate:fresh`, `prisma migrate reset`, `alembic downgrade base`, `mongorestore --drop`,
 * `pg_restore --clean` … Each deletes every row, wherever the configuration points (production too).
 */
import { throwawayEnvironment } from "./throwaway-databases.ts";

/** Per tool (after `bundle exec`, `npx`, `python manage.py` …), the tasks or words that drop or empty it all. */
const RESETS: [RegExp, RegExp][] = [
  [/^(bin\/)?(rails|rake)$/, /^db:(drop|reset|purge|schema:load|structure:load|truncate_all)(:all)?$/],
  [/^manage\.py$/, /^(flush|reset_db|sqlflush)$/],
  [/^artisan$/, /^(migrate:(fresh|reset|refresh)|db:wipe)$/],
  [/^prisma$/, /^(migrate reset|db push .*--force-reset)/],
  [/^(sequelize|sequelize-cli)$/, /^db:drop$|^db:migrate:undo:all$/],
  [/^knex$/, /^migrate:rollback .*--all/],
  [/^typeorm$/, /^schema:drop$/],
  [/^alembic$/, /^downgrade base$/],
  [/^flask$/, /^db downgrade base$/],
  [/^(diesel|sqlx)$/, /^database (reset|drop)/],
  [/^(mix)$/, /^ecto\.(drop|reset)$/],
  [/^liquibase$/, /^drop-?all$/i],
  [/^flyway$/, /^clean$/],
  [/^supabase$/, /^db reset/],
  [/^drizzle-kit$/, /^drop$/],
  [/^dotnet$/, /^ef database drop/],
  [/^(npx )?(mikro-orm|typeorm-ts-node-commonjs)$/, /^(schema:drop|schema:fresh)/],
  [/^(goose|migrate|dbmate)$/, /^(reset|drop|down-to 0)\b/],
];

/** The program and words past runners: `bundle exec rails …`, `npx prisma …`, `python manage.py …`. */
function tool(argv: string[]): { name: string; words: string[] } {
  let i = 0;
  while (/^(bundle|exec|npx|pnpm|yarn|bunx|dlx|python\d*(\.\d+)?|php|poetry|run|pipenv|uv)$/.test(argv[i] ?? "")) i++;
  const name = (argv[i] ?? "").replace(/^\.\//, "");
  return { name, words: argv.slice(i + 1) };
}

/** Why the command drops or empties a whole database, or null. */
export function schemaReset(argv: string[]): string | null {
  // `rails db:drop RAILS_ENV=test`, `manage.py flush --settings=app.settings.test`: the test database.
  if (throwawayEnvironment(argv)) return null;
  const { name, words } = tool(argv);
  const text = words.join(" ");
  for (const [program, task] of RESETS) {
    if (program.test(name) && (task.test(text) || words.some((w) => task.test(w)))) {
      const what = words.find((w) => task.test(w)) ?? words.slice(0, 2).join(" ");
      return `${name} ${what} drops or empties the whole database`;
    }
  }
  const [program = "", ...args] = argv;
  // Restores that drop what is there first.
  if (program === "mongorestore" && args.includes("--drop"))
    return "mongorestore --drop drops every collection it restores";
  if (program === "pg_restore" && args.some((a) => a === "-c" || a === "--clean")) {
    return "pg_restore --clean drops the database's objects before restoring";
  }
  return null;
}
