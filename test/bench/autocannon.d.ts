/**
 * The part of autocannon's API (9.0.0, a devDependency; the package ships no types) that test/bench/http.ts uses.
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  namespace autocannon {
    interface RequestParams {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
    }

    interface Request extends RequestParams {
      /** Called before every request is built; returns the request to send (falsy: reset the request chain). */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | undefined
      /** Called with every response. */
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, unknown>) => void
    }

    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      pipelining?: number
      /** Seconds. */
      timeout?: number
      headers?: Record<string, string>
      requests?: Array<Request>
      setupClient?: (client: unknown) => void
    }

    /** Latencies in milliseconds; requests per second sampled every second. */
    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total: number
      p50: number
      p90: number
      p97_5: number
      p99: number
      p99_9: number
    }

    interface Result {
      duration: number
      errors: number
      timeouts: number
      non2xx: number
      resets: number
      "1xx": number
      "2xx": number
      "3xx": number
      "4xx": number
      "5xx": number
      statusCodeStats: Record<string, { count: number }>
      latency: Histogram & { totalCount: number }
      requests: Histogram & { sent: number }
      throughput: Histogram
    }
  }

  function autocannon(options: autocannon.Options): EventEmitter & PromiseLike<autocannon.Result>

  export = autocannon
}
