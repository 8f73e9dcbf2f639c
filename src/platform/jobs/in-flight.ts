/** A number of places taken in turn: acquire() waits for a free one, release() gives one back. */
class Places {
  #taken = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  acquire(): Promise<void> {
    if (this.#taken < this.size) {
      this.#taken++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The place goes straight to the longest waiter, if any. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#taken--;
  }

  get idle(): boolean {
    return this.#taken === 0 && this.#waiting.length === 0;
  }
}

/**
 * The jobs a worker has in flight (working outside the database, e.g. waiting on a webhook endpoint): at most
 * `concurrency` in all and `perKey` of one fair key. A job waits for both places, its key's first, so a key that has
 * all its places never holds a place of the worker's that another key could use.
 */
export class InFlight {
  readonly #all: Places;
  readonly #byKey = new Map<string, Places>();

  constructor(
    concurrency: number,
    private readonly perKey: number,
  ) {
    this.#all = new Places(concurrency);
  }

  /** Resolves once the job may go in flight; call leave() after, exactly once. */
  async enter(fairKey: string | null): Promise<void> {
    if (fairKey !== null) {
      let places = this.#byKey.get(fairKey);
      if (!places) {
        places = new Places(this.perKey);
        this.#byKey.set(fairKey, places);
      }
      await places.acquire();
    }
    await this.#all.acquire();
  }

  leave(fairKey: string | null): void {
    this.#all.release();
    if (fairKey === null) return;
    const places = this.#byKey.get(fairKey);
    places?.release();
    if (places?.idle) this.#byKey.delete(fairKey);
  }
}
