import { and, asc, eq, sql } from 'drizzle-orm'
import { preparedPer } from './prepared.ts'
import { runProgram } from './program.ts'
import { FolderNameConflictError, FolderNotFoundError } from '../../core/errors.ts'
import type { Folder } from '../../core/types.ts'
import type { Database } from './open-database.ts'
import { folders } from './schema.ts'

const isUniqueViolation = (error: unknown): boolean =>
  /UNIQUE constraint failed/.test(String((error as { cause?: unknown })?.cause ?? error))

const conflict = (name: string): FolderNameConflictError =>
  new FolderNameConflictError(`A folder named "${name}" already exists`)

// Prepared once: building the query cost more than running it (docs/benchmarks.md#profile).
const foldersOfPerson = preparedPer((db) =>
  db
    .select({ id: folders.id, name: folders.name })
    .from(folders)
    .where(eq(folders.userId, sql.placeholder('userId')))
    .orderBy(asc(folders.nameKey), asc(folders.id))
    .prepare(),
)

export async function listFolders(db: Database, userId: string): Promise<Folder[]> {
  const rows = (await foldersOfPerson(db).values({ userId })) as ArrayLike<unknown>[]
  return rows.map((row) => ({ id: row[0] as string, name: row[1] as string }))
}

export async function createFolder(
  db: Database,
  row: { id: string; userId: string; name: string; nameKey: string; now: string },
): Promise<Folder> {
  try {
    await db.insert(folders).values({
      id: row.id,
      userId: row.userId,
      name: row.name,
      nameKey: row.nameKey,
      createdAt: row.now,
      updatedAt: row.now,
    })
  } catch (error) {
    // The unique index decides, so two concurrent creates of one name cannot both win.
    if (isUniqueViolation(error)) throw conflict(row.name)
    throw error
  }
  return { id: row.id, name: row.name }
}

/**
 * Renames the person's folder. Its exact name again is no change: `updatedAt` stays, decided in the UPDATE
 * so concurrent renames agree, and so no changes-feed entry or webhook message is written; a change of case
 * is a change (docs/api.md#no-op-writes).
 */
export async function renameFolder(
  db: Database,
  userId: string,
  id: string,
  name: { name: string; key: string },
  now: string,
): Promise<Folder> {
  let updated: Folder[]
  try {
    updated = await db
      .update(folders)
      .set({
        name: name.name,
        nameKey: name.key,
        updatedAt: sql`CASE WHEN ${folders.name} IS ${name.name} THEN ${folders.updatedAt} ELSE ${now} END`,
      })
      .where(and(eq(folders.id, id), eq(folders.userId, userId)))
      .returning({ id: folders.id, name: folders.name })
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(name.name)
    throw error
  }
  const [folder] = updated
  if (!folder) throw new FolderNotFoundError(id)
  return folder
}

/**
 * Deletes the person's folder and takes its items out of it, in one transaction: each item's `folder`
 * becomes null and, as for any change of an item, its `updatedAt` becomes `now` (the foreign key's
 * ON DELETE SET NULL alone would leave it; docs/api.md#folders). FolderNotFoundError when it is not theirs.
 */
export async function deleteFolder(db: Database, userId: string, id: string, now: string): Promise<void> {
  const deleted = await runProgram(db, function* () {
    // Another person's folder holds none of this person's items: the UPDATE then changes nothing either.
    yield {
      run: 'UPDATE saved_items SET folder_id = NULL, updated_at = ? WHERE user_id = ? AND folder_id = ?',
      args: [now, userId, id],
    }
    return (yield { run: 'DELETE FROM folders WHERE id = ? AND user_id = ?', args: [id, userId] }) as number
  })
  if (deleted === 0) throw new FolderNotFoundError(id)
}

/** The person's folder with this name key (names are unique by key: case and Unicode form aside). */
export async function findFolderByKey(db: Database, userId: string, nameKey: string): Promise<Folder | null> {
  const [row] = await db
    .select({ id: folders.id, name: folders.name })
    .from(folders)
    .where(and(eq(folders.userId, userId), eq(folders.nameKey, nameKey)))
  return row ?? null
}
