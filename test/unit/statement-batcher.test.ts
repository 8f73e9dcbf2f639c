import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementBatcher, type StatementBatcherOptions } from '../../src/platform/db/batcher.ts';

/** A batcher whose batches are recorded; an input of 'bad' (or 'down', as a database would) fails its batch. */
function recordingBatcher(options?: StatementBatcherOptions) {
  const batches: string[][] = [];
  const batcher = new StatementBatcher<string, string>(async (inputs) => {
    batches.push(inputs);
    if (inputs.includes('down')) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
    if (inputs.includes('bad')) throw new Error(`batch of ${inputs.length} failed`);
    return inputs.map((input) => input.toUpperCase());
  }, options);
  return { batches, batcher };
}

describe('StatementBatcher', () => {
  it('calls made in one turn of the event loop run as one batch, in call order, each answered with its own result', async () => {
    const { batches, batcher } = recordingBatcher();
    const results = await Promise.all(['a', 'b', 'c'].map((input) => batcher.run(input)));
    assert.deepEqual(results, ['A', 'B', 'C']);
    assert.deepEqual(batches, [['a', 'b', 'c']]);
  });

  it('a call made after a batch left starts a new batch', async () => {
    const { batches, batcher } = recordingBatcher();
    assert.equal(await batcher.run('a'), 'A');
    const [b, c] = await Promise.all([batcher.run('b'), batcher.run('c')]);
    assert.deepEqual([b, c], ['B', 'C']);
    assert.deepEqual(batches, [['a'], ['b', 'c']]);
  });

  it('splits the calls of one turn into batches of at most maxBatch', async () => {
    const { batches, batcher } = recordingBatcher({ maxBatch: 2 });
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((input) => batcher.run(input)));
    assert.deepEqual(results, ['A', 'B', 'C', 'D', 'E']);
    assert.deepEqual(batches, [['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('with maxInFlight, calls made while that many batches run wait for one to end, then go together', async () => {
    const batches: string[][] = [];
    const gates: (() => void)[] = [];
    const batcher = new StatementBatcher<string, string>(
      async (inputs) => {
        batches.push(inputs);
        await new Promise<void>((open) => gates.push(open));
        return inputs.map((input) => input.toUpperCase());
      },
      { maxInFlight: 1 },
    );
    const first = batcher.run('a');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [['a']]);
    // Three more calls, each in a turn of its own, while the first batch runs.
    const later: Promise<string>[] = [];
    for (const input of ['b', 'c', 'd']) {
      later.push(batcher.run(input));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(batches, [['a']], 'nothing else starts while one runs');
    gates.shift()!();
    assert.equal(await first, 'A');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
    gates.shift()!();
    assert.deepEqual(await Promise.all(later), ['B', 'C', 'D']);
  });

  it('refuses a maxInFlight that is not a whole number from 1', () => {
    for (const maxInFlight of [0, 1.5, -1]) {
      assert.throws(() => new StatementBatcher(async () => [], { maxInFlight }), /maxInFlight/);
    }
  });

  it('a batch that fails as a whole is run again call by call: only the failing call is rejected', async () => {
    const splits: [number, string][] = [];
    const { batches, batcher } = recordingBatcher({
      onSplit: (size, error) => splits.push([size, (error as Error).message]),
    });
    const settled = await Promise.allSettled(['a', 'bad', 'c'].map((input) => batcher.run(input)));
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      ['A', 'batch of 1 failed', 'C'],
    );
    assert.deepEqual(batches, [['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    assert.deepEqual(
      splits,
      [[3, 'batch of 3 failed']],
      'the split is told once, the lone failure not at all',
    );
  });

  it('a failure it is told not to split rejects every call of the batch with it, none run again', async () => {
    const { batches, batcher } = recordingBatcher({
      splits: (error) => (error as { code?: string }).code !== 'ECONNREFUSED',
    });
    const settled = await Promise.allSettled(['a', 'down', 'c'].map((input) => batcher.run(input)));
    assert.deepEqual(
      settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : s.value)),
      ['down', 'down', 'down'],
    );
    assert.deepEqual(batches, [['a', 'down', 'c']]);
  });

  it('a lone failing call is rejected with its own error, once', async () => {
    const { batches, batcher } = recordingBatcher();
    await assert.rejects(batcher.run('bad'), /batch of 1 failed/);
    assert.deepEqual(batches, [['bad']]);
  });

  it('a batch answered with the wrong number of results is run again call by call', async () => {
    let calls = 0;
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      calls++;
      return inputs.length > 1 ? [1] : inputs.map((n) => n * 10);
    });
    assert.deepEqual(await Promise.all([1, 2].map((n) => batcher.run(n))), [10, 20]);
    assert.equal(calls, 3);
  });

  for (const maxBatch of [0, -1, 1.5]) {
    it(`maxBatch ${maxBatch} is refused`, () => {
      assert.throws(
        () => new StatementBatcher(async () => [], { maxBatch }),
        /maxBatch must be a whole number/,
      );
    });
  }
});
