import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api.ts'

/**
 * What a bridge tells this device about itself (`GET /device`: its role) and about the bridge
 * (`GET /info`: its API level). Asked once per bridge and bearer while the page lives: views ask
 * often, and neither answer changes under a running page except by re-pairing (a new bearer).
 */
const asked = new Map<string, Promise<unknown>>()

function once<T>(api: Api, path: '/device' | '/info'): Promise<T | undefined> {
  const key = `${api.bridge.url}\n${api.bridge.bearer}\n${path}`
  let p = asked.get(key) as Promise<T | undefined> | undefined
  if (!p) {
    p = (api.get(path) as Promise<T>).catch(() => {
      asked.delete(key) // a failed read is asked again next time
      return undefined
    })
    asked.set(key, p)
  }
  return p
}

/** The API level from which `/approve` takes `option` and `/send` takes `seq`: an older bridge ignores them. */
export const OPTIONS_API = 7

export const deviceRole = (api: Api) => once<{ role?: string }>(api, '/device').then((d) => (typeof d?.role === 'string' ? d.role : undefined))
export const bridgeVersion = (api: Api) => once<{ version?: number }>(api, '/info').then((i) => (typeof i?.version === 'number' ? i.version : undefined))

function useAsk<T>(api: Api, ask: (api: Api) => Promise<T | undefined>): T | undefined {
  const [value, setValue] = useState<T | undefined>(undefined)
  useEffect(() => {
    let live = true
    void ask(api).then((v) => live && setValue(v))
    return () => void (live = false)
  }, [api])
  return value
}

/** True once the bridge says this device is a viewer: its write controls are not drawn. */
export const useWatchOnly = (api: Api): boolean => useAsk(api, deviceRole) === 'viewer'
/** The bridge's API level; undefined while unknown (then nothing is held back). */
export const useBridgeVersion = (api: Api): number | undefined => useAsk(api, bridgeVersion)
