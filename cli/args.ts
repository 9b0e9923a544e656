/** Flags shared by the commands that talk to a running daemon: any daemon, like `serve`. */
export const targetArgs = {
  dir: { type: 'string', description: 'Data dir of the bridge (default $BRIDGE_DIR or ~/.herdr-bridge)' },
  url: { type: 'string', description: "URL of the bridge (default: as --addr's)" },
  addr: {
    type: 'string',
    description: "host:port of the bridge (default $BRIDGE_ADDR, else where the data dir's running bridge listens, from its run file, else transport.addr)",
  },
} as const

export const dirArg = { dir: { type: 'string', description: 'Data dir (default $BRIDGE_DIR or ~/.herdr-bridge)' } } as const
