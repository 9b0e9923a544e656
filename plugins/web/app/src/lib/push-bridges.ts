/**
 * The paired bridges as the push worker needs them for an Approve action (server id, base URL,
 * bearer). A worker cannot read localStorage, so the page mirrors them into IndexedDB, which
 * both can open. Written by the page when alerts are enabled and at each start; read by the worker.
 */
export interface WorkerBridge {
  server_id: string
  url: string
  bearer: string
}

const DB = 'herdr-bridge-push'
const STORE = 'kv'
const KEY = 'bridges'

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1)
    req.onupgradeneeded = () => req.result.createObjectStore(STORE)
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error ?? new Error('IndexedDB: cannot open the database'))
  })
}

function run<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> {
  return open().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const tx = db.transaction(STORE, mode)
        const req = fn(tx.objectStore(STORE))
        tx.oncomplete = () => (db.close(), resolve(req.result as T))
        tx.onerror = () => (db.close(), reject(tx.error ?? new Error('IndexedDB: the transaction failed')))
      }),
  )
}

export const saveWorkerBridges = (list: WorkerBridge[]): Promise<void> =>
  run<unknown>('readwrite', (s) =>
    s.put(
      list.map((b) => ({ server_id: b.server_id, url: b.url, bearer: b.bearer })),
      KEY,
    ),
  ).then(() => {})

export const loadWorkerBridges = (): Promise<WorkerBridge[]> =>
  run<unknown>('readonly', (s) => s.get(KEY)).then(
    (v) => (Array.isArray(v) ? (v as WorkerBridge[]) : []),
    () => [],
  )
