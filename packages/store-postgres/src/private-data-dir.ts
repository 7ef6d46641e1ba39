/**
 * The embedded database's files are the owner's alone: they hold e-mail addresses and password
 * hashes. Directories are 0700 and files 0600, for a directory this version creates, one an older
 * version left with the default modes, and every file PGlite creates later.
 */
import { chmodSync } from 'node:fs';
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { importPGlite, importPGliteNodeFS } from './import-pglite.ts';
import { pgliteStartParams } from './pglite-settings.ts';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The permission bits of the group and of others. */
const SHARED_BITS = 0o077;

/** Creates `dir` (0700) when missing, and makes it and everything under it private. */
export async function privateDataDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(dir, PRIVATE_DIR_MODE);
    // Synchronous: a PGlite directory holds about 1,070 entries, and one awaited chmod each took
    // 49-76 ms in all, against 8 ms in one synchronous loop (2026-12-07, /dev/shm). This runs once,
    // while the store opens, before it answers anything.
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isDirectory()) chmodSync(path, PRIVATE_DIR_MODE);
      else if (entry.isFile()) chmodSync(path, PRIVATE_FILE_MODE);
    }
  } catch (error) {
    // Node's `EPERM: operation not permitted, chmod` names neither the directory nor the fix (and a
    // recursive mkdir on a read-only file system says ENOENT).
    const code = (error as { code?: string }).code ?? '';
    if (!['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT'].includes(code)) throw error;
    throw new Error(`cannot write the data directory ${resolve(dir)} (${code}): make it a directory this user (uid ${process.getuid?.() ?? '?'}) can write, or set DATA_DIR to one`, { cause: error });
  }
}

/** The part of Emscripten's NODEFS that creates files and changes their modes. */
interface NodeFsOps {
  node_ops: { mknod(parent: unknown, name: string, mode: number, dev: number): unknown; setattr(node: unknown, attr: { mode?: number }): void };
  stream_ops: { setattr(stream: unknown, attr: { mode?: number }): void };
}

/**
 * Opens PGlite on `dataDir` with Node files that are never shared. PGlite's Node filesystem creates
 * files with the modes Postgres asks for inside WebAssembly (mostly 0666, some chmodded to 0666
 * later) and no umask; rather than change the whole process's umask, this masks the group and
 * other bits out of every mode that this PGlite instance's own NODEFS (one per instance) creates or
 * sets.
 */
export async function openPrivatePGlite(dataDir: string, settings?: Readonly<Record<string, string>>): Promise<PGlite> {
  const [{ PGlite }, { NodeFS }] = await Promise.all([importPGlite(), importPGliteNodeFS()]);
  const withoutShared = (attr: { mode?: number }) => (attr.mode === undefined ? attr : { ...attr, mode: attr.mode & ~SHARED_BITS });
  class PrivateNodeFS extends NodeFS {
    override init(...[pg, options]: Parameters<InstanceType<typeof NodeFS>['init']>) {
      const mask = (mod: { NODEFS: unknown }) => {
        const { node_ops, stream_ops } = mod.NODEFS as NodeFsOps;
        const { mknod, setattr } = node_ops;
        const setStreamAttr = stream_ops.setattr;
        node_ops.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & ~SHARED_BITS, dev);
        node_ops.setattr = (node, attr) => setattr(node, withoutShared(attr));
        stream_ops.setattr = (stream, attr) => setStreamAttr(stream, withoutShared(attr));
      };
      // Before NodeFS's own step, which mounts the directory.
      return super.init(pg, { ...options, preRun: [mask, ...(options.preRun ?? [])] });
    }
  }
  // PGlite's own error says only that it failed; Postgres says why (a setting it does not know, a
  // value it refuses) on its standard error, which PGlite swallows unless asked.
  let postgresSaid = '';
  const onStderr = (text: string) => {
    if (/\b(FATAL|PANIC|ERROR):/.test(text)) postgresSaid = text.replace(/^.*?\b(FATAL|PANIC|ERROR):\s*/, '');
    return false;
  };
  try {
    return await PGlite.create({ fs: new PrivateNodeFS(dataDir), startParams: pgliteStartParams(PGlite.defaultStartParams, settings), onStderr });
  } catch (error) {
    if (!postgresSaid) throw error;
    throw new Error(`${(error as Error).message}: ${postgresSaid}`, { cause: error });
  }
}
