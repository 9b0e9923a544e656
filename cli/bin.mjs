#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step), so `npx bridge` works in a checkout.
import { register } from 'tsx/esm/api'

register()
await import('./main.ts')
