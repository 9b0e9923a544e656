/** Flags shared by the commands that talk to a running daemon: any daemon, like `serve`. */
export const targetArgs = {
  dir: { type: 'string', description: 'Data dir of the bridge (default $BRIDGE_DIR or ~/.herdr-bridge)' },
  url: { type: 'string', description: 'URL of the bridge (default http://<transport.addr>)' },
  addr: { type: 'string', description: 'host:port of the bridge (default $BRIDGE_ADDR or transport.addr)' },
} as const

export const dirArg = { dir: { type: 'string', description: 'Data dir (default $BRIDGE_DIR or ~/.herdr-bridge)' } } as const
