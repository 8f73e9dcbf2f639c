/** Hand-written SQL's declared row shapes: rows that match pass through, a drifted row fails loudly and names itself. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Col, RowShapeError, sqlStatement } from '../../src/platform/db/checked-sql.ts';
import type { Queryable } from '../../src/platform/db/db.ts';

/** A database that answers every query with `answer`, recording what it was asked. */
function answering(answer: unknown[]) {
  const asked: { sql: string; params: unknown; prepare: string | undefined }[] = [];
  const db: Queryable = {
    query: async <Row>(sql: string, params?: readonly unknown[], options?: { prepare?: string }) => {
      asked.push({ sql, params, prepare: options?.prepare });
      return answer as Row[];
    },
    notifyOnCommit: async () => undefined,
  };
  return { db, asked };
}

const DUE = sqlStatement(
  Col.row({ id: Col.text, attempts: Col.int, run_at: Col.date, last_error: Col.nullable(Col.text) }),
  `SELECT id, attempts, run_at, last_error
     FROM jobs WHERE run_at <= $1`,
  { prepare: 'due_jobs' },
);

describe('sqlStatement', () => {
  it('runs the SQL with its parameters and prepared name, and returns rows that match the schema', async () => {
    const row = { id: 'job_1', attempts: 2, run_at: new Date('2026-03-01T00:00:00Z'), last_error: null };
    const { db, asked } = answering([row]);
    assert.deepEqual(await DUE.rows(db, [new Date(0)]), [row]);
    assert.deepEqual(await DUE.first(db, [new Date(0)]), row);
    assert.deepEqual(asked[0], { sql: DUE.text, params: [new Date(0)], prepare: 'due_jobs' });
    assert.equal(await DUE.first(answering([]).db), undefined);
  });

  it('a row that drifted from the schema is a RowShapeError naming the statement and the column', async () => {
    for (const [row, column] of [
      [{ id: 'job_1', attempts: '2', run_at: new Date(), last_error: null }, '/attempts'],
      [{ id: 'job_1', attempts: 2, run_at: '2026-03-01', last_error: null }, '/run_at'],
      [{ id: 'job_1', attempts: 2, run_at: new Date() }, 'last_error'],
    ] as const) {
      await assert.rejects(DUE.rows(answering([row]).db), (error: Error) => {
        assert.ok(error instanceof RowShapeError);
        assert.match(error.message, /^A row of "due_jobs" does not match its schema: /);
        assert.ok(error.message.includes(column), error.message);
        return true;
      });
    }
  });

  it('an unnamed statement is named by its first line', async () => {
    const count = sqlStatement(Col.row({ n: Col.int }), 'SELECT count(*) AS n FROM jobs');
    await assert.rejects(
      count.rows(answering([{ n: '3' }]).db),
      /^RowShapeError: A row of "SELECT count\(\*\) AS n FROM jobs"/,
    );
  });
});
