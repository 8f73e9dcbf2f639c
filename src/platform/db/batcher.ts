interface PendingCall<Input, Output> {
  input: Input;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

export interface StatementBatcherOptions {
  /** The most inputs one batch carries (default 64). */
  maxBatch?: number;
  /** Whether a batch that failed with this error is worth running again input by input (default: always). */
  splits?: (error: unknown) => boolean;
  /** Told each time a batch of several failed and is run again input by input. */
  onSplit?: (size: number, error: unknown) => void;
  /**
   * The most batches running at once (default: no limit). Calls made while that many run wait for one to end and
   * then go together: under load a multi-statement transaction is shared by more calls, instead of each turn's
   * few taking a connection of their own and queueing for it.
   */
  maxInFlight?: number;
}

/**
 * Gathers the calls made in one turn of the event loop into one call of `runBatch`: under load, many requests share
 * one statement (one round trip, one commit) instead of queueing for a connection each. A lone call waits for
 * nothing but the end of the current turn.
 *
 * `runBatch` gets the inputs in call order and resolves to one result per input, in the same order. It must be all
 * or nothing (one statement): a batch of several that fails is run again input by input, so that one caller's
 * failure never becomes another's, unless `splits` says the error is not worth it (a database that is down would
 * only fail each input again, after as long); then every caller gets that error.
 */
export class StatementBatcher<Input, Output> {
  #pending: PendingCall<Input, Output>[] = [];
  #scheduled = false;
  #inFlight = 0;
  readonly #maxInFlight: number;
  readonly #maxBatch: number;
  readonly #splits: (error: unknown) => boolean;
  readonly #onSplit: (size: number, error: unknown) => void;

  constructor(
    private readonly runBatch: (inputs: Input[]) => Promise<Output[]>,
    options: StatementBatcherOptions = {},
  ) {
    const {
      maxBatch = 64,
      splits = () => true,
      onSplit = () => undefined,
      maxInFlight = Number.POSITIVE_INFINITY,
    } = options;
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new Error('maxBatch must be a whole number from 1');
    if (maxInFlight !== Number.POSITIVE_INFINITY && (!Number.isInteger(maxInFlight) || maxInFlight < 1)) {
      throw new Error('maxInFlight must be a whole number from 1');
    }
    this.#maxInFlight = maxInFlight;
    this.#maxBatch = maxBatch;
    this.#splits = splits;
    this.#onSplit = onSplit;
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
    while (this.#pending.length > 0 && this.#inFlight < this.#maxInFlight) {
      const calls = this.#pending.splice(0, this.#maxBatch);
      this.#inFlight += 1;
      void this.#settle(calls).finally(() => {
        this.#inFlight -= 1;
        // Unlimited, the turn's own setImmediate flushes what waits.
        if (this.#maxInFlight !== Number.POSITIVE_INFINITY) this.#flush();
      });
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
      if (calls.length === 1 || !this.#splits(error)) {
        for (const call of calls) call.reject(error);
        return;
      }
      this.#onSplit(calls.length, error);
      await Promise.all(calls.map((call) => this.#settle([call])));
      return;
    }
    for (const [i, call] of calls.entries()) call.resolve(outputs[i]!);
  }
}
