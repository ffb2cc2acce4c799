/**
 * A sleep another part of the process can cut short. A wake that comes while nobody sleeps is
 * kept for the next sleep, so a signal between "found no work" and "go to sleep" is not lost.
 */
export class WakeableSleep {
  private resolve: (() => void) | undefined;
  private pending = false;

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }

  wake(): void {
    if (this.resolve) this.resolve();
    else this.pending = true;
  }
}
