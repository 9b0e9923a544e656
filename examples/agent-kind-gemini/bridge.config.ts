// A bridge config that adds this kind to the built-in plugins:
//   bridge serve --config ./bridge.config.ts
import { defineConfig, defaultPlugins } from 'herdr-bridge'
import gemini from './index.ts'

export default defineConfig({ plugins: [...defaultPlugins, gemini] })
