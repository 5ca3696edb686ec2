import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { PluginLogger } from '../api/index.js';
import type { ChangeFeed, InvalidationSink } from './invalidation.js';
import { kindOfPlural } from './invalidation.js';

/**
 * Tells the stored-data cache when a file under the stored-data folder changes (`requests/<id>.json` and the other
 * kinds' folders), through the operating system's file watch. Where a watch cannot be set (the folder does not exist
 * yet, or the platform refuses), the cache's TTL is all there is; that is logged once.
 */
export class FilesystemWatch implements ChangeFeed {
  private watcher: FSWatcher | undefined;

  constructor(
    private readonly dir: string,
    private readonly sink: InvalidationSink,
    private readonly logger: PluginLogger,
  ) {}

  get connected(): boolean {
    return this.watcher !== undefined;
  }

  start(): void {
    if (!existsSync(this.dir)) return;
    try {
      this.watcher = watch(this.dir, { recursive: true, persistent: false }, (_event, file) => this.changed(file));
      this.watcher.on('error', (err) => {
        this.logger.warn({ err, dir: this.dir }, 'stored data: watching the folder failed; cached documents now expire by TTL only');
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.logger.warn({ err, dir: this.dir }, 'stored data: the folder cannot be watched; cached documents expire by TTL only');
    }
  }

  async close(): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private changed(file: string | Buffer | null): void {
    if (file === null) {
      this.sink();
      return;
    }
    const path = String(file).replaceAll('\\', '/');
    const name = basename(path);
    const kind = kindOfPlural(dirname(path));
    if (kind && name.endsWith('.json')) this.sink([{ kind, id: name.slice(0, -'.json'.length) }]);
    // A whole folder renamed or replaced: anything in it may have changed.
    else if (kindOfPlural(path) || path === '.') this.sink();
  }
}
