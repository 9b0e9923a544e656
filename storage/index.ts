import { createStorage, type Storage } from 'unstorage'
import { fsAtomicDriver } from './fs-atomic-driver.ts'
import { CorruptFileError } from '../lib/atomic-file.ts'

export { createDeviceStore, type Device, type DeviceStore } from './devices.ts'
export { CorruptFileError }
export { readJson, writeJson } from './json.ts'
export { pluginStorage, pluginStoragePath, migrateLegacyLayout, PLUGIN_STORAGE_DIR } from './plugin-storage.ts'

/** The bridge's storage: unstorage over the data dir, with atomic writes. */
export function createBridgeStorage(dataDir: string): Storage {
  return createStorage({ driver: fsAtomicDriver({ base: dataDir }) })
}
