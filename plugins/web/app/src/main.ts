import { render } from 'preact'
import './style.css'
import { html } from './ui.ts'
import { App } from './app.ts'

render(html`<${App} />`, document.getElementById('app')!)

if ('serviceWorker' in navigator && (location.protocol === 'https:' || location.hostname === 'localhost' || location.hostname === '127.0.0.1')) {
  navigator.serviceWorker.register('/sw.js').catch(() => {
    /* installability is optional */
  })
}
