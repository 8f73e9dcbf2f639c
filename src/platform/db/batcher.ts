/**
 * Gathers the calls made in one turn of the event loop into one call of `runBatch`: under load, many requests share
 * one statement (one round trip, one commit) instead of queueing for a connection each. A lone call waits for
 * nothing but the end of the current turn.
 *
 * `runBatch` gets the inputs in call order and resolves to one result per input, in the same order. Should a batch
 * of several fail as a whole, each input is run again on its own, so one caller's failure never becomes another's.
 */
interface PendingCall<Input, Output> {
  input: Input;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

export class StatementBatcher<Input, Output> {
  #pending: PendingCall<Input, Output>[] = [];
  #scheduled = false;

  constructor(
    private readonly runBatch: (inputs: Input[]) => Promise<Output[]>,
    private readonly maxBatch = 64,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new Error('maxBatch must be a whole number from 1');
  }

  run(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.#pending.push({ input, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate, not a microtask: requests whose bytes arrived in the same poll of the event loop join.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    for (let start = 0; start < pending.length; start += this.maxBatch) {
      void this.#settle(pending.slice(start, start + this.maxBatch));
    }
  }

  async #settle(calls: PendingCall<Input, Output>[]): Promise<void> {
    let outputs: Output[];
    try {
      outputs = await this.runBatch(calls.map((call) => call.input));
      if (outputs.length !== calls.length) {
        throw new Error(`a batch of ${calls.length} returned ${outputs.length} results`);
      }
    } catch (error) {
      if (calls.length === 1) {
        calls[0]!.reject(error);
        return;
      }
      await Promise.all(calls.map((call) => this.#settle([call])));
      return;
    }
    for (const [i, call] of calls.entries()) call.resolve(outputs[i]!);
  }
}
