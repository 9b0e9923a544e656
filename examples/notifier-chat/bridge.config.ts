// A bridge config that adds this channel to the built-in plugins:
//   BRIDGE_CHAT_URL=https://hooks.example/… bridge serve --config ./bridge.config.ts
import { defineConfig, defaultPlugins } from 'herdr-bridge'
import chat from './index.ts'

export default defineConfig({ plugins: [...defaultPlugins, chat] })
