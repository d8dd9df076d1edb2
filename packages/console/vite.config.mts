import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The console is served by the interface tier under /console/ (built assets
 * from dist/). `npm run dev -w @herald/console` serves it with hot reload and
 * proxies /api to a running Herald (HERALD_URL, default http://127.0.0.1:8080).
 */
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
  server: { proxy: { '/api': process.env.HERALD_URL ?? 'http://127.0.0.1:8080' } },
});
