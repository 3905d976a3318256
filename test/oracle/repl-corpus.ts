/**
 * The inputs of the REPL oracle (issue 36 item 3): per REPL, a fixed corpus of the inputs that
 * trip a wait (multi-line blocks and continuation prompts, errors, long and wrapped output, slow
 * computations, output that looks like the REPL's own prompt, output with no final newline), then
 * seeded generated expressions and statements that build state the later ones read.
 *
 * Not here: node's top-level `await` of a timer. Its piped REPL reads on while the promise is
 * pending (its answer lands after the next input's), so it has no oracle; repl-states.test.ts
 * checks it in the terminal.
 */
import type { Prng } from "../chaos/prng.ts";

export type ReplName = "python3" | "node" | "sqlite3" | "psql" | "redis-cli" | "irb";

const WORDS = ["alpha", "beta", "gamma", "delta", "x", "y", "zeta", "omega", "héllo", "日本"];

/** A random arithmetic expression over small integers (depth-bounded, with parentheses). */
function arith(rng: Prng, depth: number, ops: readonly string[]): string {
  if (depth === 0 || rng.chance(0.3)) return String(rng.int(0, 999));
  const left = arith(rng, depth - 1, ops);
  const right = arith(rng, depth - 1, ops);
  const e = `${left} ${rng.pick(ops)} ${right}`;
  return rng.chance(0.4) ? `(${e})` : e;
}

const PYTHON_FIXED = [
  "2+2",
  "for i in range(3):\n    print(i)\n",
  "def sq(a):\n    return a*a\n\nsq(12)",
  "class P:\n    def __repr__(self):\n        return '>>> P'\n\nP()",
  "x = [i*i for i in range(200)]\nx",
  "1/0",
  "undefined_name",
  "  2+2",
  "print('>>> fake prompt')",
  "print('... more to come')",
  "print('>>> ')",
  "print('no newline', end='')",
  "import sys; sys.stdout.write('written')",
  "import time; time.sleep(1.5); print('slept')",
  "sum(range(3_000_000))",
  "for i in range(400): print('line', i)\n",
  "'x' * 300",
  "print('\\n'.join(str(i) for i in range(50)))",
  "quiet = 5",
  "[i for i in range(\n5)]",
  "'''two\nlines'''",
  "try:\n    1/0\nexcept ZeroDivisionError as e:\n    print('caught', e)\n",
  "if True:\n    pass\n",
  "print('héllo wörld ✓ 日本語')",
  "{'k': [1, 2, {'n': None}], 'quiet': quiet}",
];

const NODE_FIXED = [
  "2+2",
  "function f(a) {\n  return a + 1;\n}",
  "f(41)",
  "const o = {a: 1,\n  b: [1, 2, 3]}",
  "o",
  "x.y",
  "throw new Error('boom')",
  "console.log('> fake prompt')",
  "console.log('... more to come')",
  "process.stdout.write('no newline')",
  "'a'.repeat(300)",
  "for (let i = 0; i < 200; i++) console.log('n', i)",
  "let s = 0; for (let i = 0; i < 3e7; i++) s += i; s",
  "({a: {b: {c: {d: 1}}}})",
  "[1, 2, 3].map((n) =>\n  n * 2)",
  "'héllo wörld ✓ 日本語'",
  "[typeof f, o.b.length]",
];

const SQLITE_FIXED = [
  "CREATE TABLE t(a INTEGER, b TEXT);",
  "INSERT INTO t VALUES (1, 'one'), (2, 'two');",
  "SELECT * FROM t;",
  "SELECT a,\n  b\nFROM t\nWHERE a > 1;",
  "SELECT * FROM missing;",
  "SELEC 1;",
  "SELECT 'sqlite> fake prompt';",
  "SELECT '   ...> more';",
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 300) SELECT x FROM c;",
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3000000) SELECT count(*) FROM c;",
  ".tables",
  ".headers on",
  "SELECT * FROM t;",
  ".mode column",
  "SELECT * FROM t;",
  ".mode list",
  ".headers off",
  "SELECT 1; SELECT 2;",
  "SELECT printf('%.*c', 300, 'x');",
  "SELECT 'héllo wörld ✓ 日本語';",
  "SELECT count(*), sum(a) FROM t;",
];

const PSQL_FIXED = [
  "CREATE TABLE t(a int, b text);",
  "INSERT INTO t VALUES (1, 'one'), (2, 'two');",
  "SELECT * FROM t ORDER BY a;",
  "SELECT a,\n  b\nFROM t\nWHERE a > 1;",
  "SELECT * FROM missing;",
  "SELEC 1;",
  "SELECT 'postgres=# fake prompt' AS p;",
  "SELECT 'postgres-# more' AS p;",
  "SELECT generate_series(1, 300) AS n;",
  "SELECT pg_sleep(1.5);",
  "SELECT count(*) FROM generate_series(1, 3000000);",
  "\\dt",
  "\\echo echoed",
  "SELECT 1; SELECT 2;",
  "SELECT repeat('x', 300) AS long;",
  "SELECT 'héllo wörld ✓ 日本語' AS u;",
  "SELECT count(*), sum(a) FROM t;",
];

const REDIS_FIXED = [
  "SET greeting hello",
  "GET greeting",
  "INCR counter",
  "RPUSH list a b c",
  "LRANGE list 0 -1",
  "HSET h f1 v1 f2 v2",
  "HGETALL h",
  "GET nokey",
  "BADCMD x",
  'SET fake "127.0.0.1:6379> "',
  "GET fake",
  "BLPOP emptylist 1.5",
  "EVAL \"for i=1,300 do redis.call('RPUSH','big',i) end return 1\" 0",
  "LRANGE big 0 -1",
  'SET u "héllo wörld ✓"',
  "GET u",
  "DBSIZE",
];

const IRB_FIXED = [
  "2+2",
  "def f(a)\n  a+1\nend",
  "f(41)",
  "[1, 2, 3].map { |x|\n  x * 2\n}",
  "1/0",
  "undefined_name",
  "puts 'irb(main):001:0> fake prompt'",
  "puts '=> fake result'",
  "print 'no newline'",
  "sleep 1.5; 'slept'",
  "(1..3_000_000).sum",
  '300.times { |i| puts "line #{i}" }',
  "'x' * 300",
  "'héllo wörld ✓ 日本語'",
  "h = { a: 1, b: [1, 2] }",
  "[f(1), h[:b].size]",
];

/** Generated inputs for one REPL: expressions, and assignments that later inputs read. */
function generated(repl: ReplName, rng: Prng, count: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const word = rng.pick(WORDS);
    switch (repl) {
      case "python3": {
        const kind = rng.int(0, 3);
        if (kind === 0) out.push(arith(rng, 3, ["+", "-", "*", "//", "%"]));
        else if (kind === 1) out.push(`v${k % 7} = ${arith(rng, 2, ["+", "-", "*"])}`);
        else if (kind === 2) out.push(`[${word!.length}, ${JSON.stringify(word)} * ${rng.int(1, 4)}]`);
        else out.push(`print(${JSON.stringify(word)}, ${arith(rng, 2, ["+", "*"])})`);
        break;
      }
      case "node": {
        const kind = rng.int(0, 3);
        if (kind === 0) out.push(arith(rng, 3, ["+", "-", "*", "%"]));
        else if (kind === 1) out.push(`var v${k % 7} = ${arith(rng, 2, ["+", "-", "*"])}`);
        else if (kind === 2) out.push(`[${JSON.stringify(word)}.repeat(${rng.int(1, 4)}), ${rng.int(0, 99)}]`);
        else out.push(`console.log(${JSON.stringify(word)}, ${arith(rng, 2, ["+", "*"])})`);
        break;
      }
      case "sqlite3":
      case "psql": {
        const kind = rng.int(0, 2);
        if (kind === 0) out.push(`SELECT ${arith(rng, 3, ["+", "-", "*"])} AS v;`);
        else if (kind === 1) out.push(`INSERT INTO t VALUES (${rng.int(3, 999)}, '${word}');`);
        else out.push(`SELECT count(*), max(a) FROM t WHERE b = '${word}';`);
        break;
      }
      case "irb": {
        const kind = rng.int(0, 3);
        if (kind === 0) out.push(arith(rng, 3, ["+", "-", "*", "%"]));
        else if (kind === 1) out.push(`v${k % 7} = ${arith(rng, 2, ["+", "-", "*"])}`);
        else if (kind === 2) out.push(`[${JSON.stringify(word)} * ${rng.int(1, 4)}, ${rng.int(0, 99)}]`);
        else out.push(`puts ${JSON.stringify(word)}, ${arith(rng, 2, ["+", "*"])}`);
        break;
      }
      case "redis-cli": {
        const kind = rng.int(0, 3);
        const key = `k${rng.int(0, 9)}`;
        if (kind === 0) out.push(`SET ${key} "${word}"`);
        else if (kind === 1) out.push(`GET ${key}`);
        else if (kind === 2) out.push(`INCRBY n${rng.int(0, 3)} ${rng.int(-50, 50)}`);
        else out.push(`RPUSH l${rng.int(0, 3)} ${word}`);
        break;
      }
    }
  }
  return out;
}

const FIXED: Record<ReplName, readonly string[]> = {
  python3: PYTHON_FIXED,
  node: NODE_FIXED,
  sqlite3: SQLITE_FIXED,
  psql: PSQL_FIXED,
  "redis-cli": REDIS_FIXED,
  irb: IRB_FIXED,
};

/** The fixed corpus first (its state is what the generated inputs build on), then `count` generated. */
export function replCorpus(repl: ReplName, rng: Prng, count: number): string[] {
  return [...FIXED[repl], ...generated(repl, rng, count)];
}
