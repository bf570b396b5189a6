import { normalizeFolderName } from '../../core/folders/folder-name.ts'
import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Folder, Principal } from '../../core/types.ts'
import type { AppDeps } from './deps.ts'
import { createFolder, deleteFolder, listFolders, renameFolder } from '../storage/folders.ts'

/** The folder operations, shared by the REST routes and the MCP tools. */

export const folderList = (deps: AppDeps, principal: Principal): Promise<Folder[]> =>
  listFolders(deps.db, principal.userId)

export function folderCreate(deps: AppDeps, principal: Principal, rawName: string): Promise<Folder> {
  const now = deps.clock.now()
  const name = normalizeFolderName(rawName)
  return createFolder(deps.db, {
    id: uuidv7(now.getTime(), deps.random),
    userId: principal.userId,
    name: name.name,
    nameKey: name.key,
    now: toTimestamp(now),
  })
}

export const folderRename = (deps: AppDeps, principal: Principal, id: string, rawName: string): Promise<Folder> =>
  renameFolder(deps.db, principal.userId, id, normalizeFolderName(rawName), toTimestamp(deps.clock.now()))

/**
 * Keeps the folder's items; their folder becomes null, which changes them (`updatedAt`). FolderNotFoundError
 * when it is not the caller's.
 */
export const folderDelete = (deps: AppDeps, principal: Principal, id: string): Promise<void> =>
  deleteFolder(deps.db, principal.userId, id, toTimestamp(deps.clock.now()))
