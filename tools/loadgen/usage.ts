export const USAGE = `Usage: loadgen [options]

Arrival model (one of; default --rate 50):
  --rate <n>               open model: n new orders/s for --duration seconds
  --steps <a,b,c>          open model, stepped: a orders/s, then b, ... each for --step-seconds (30)
  --closed <n>             closed model: n clients, each sending when its previous request completes
  --duration <s>           seconds of load (default 60; not with --steps)
  --max-in-flight <n>      open model: a request due while n are outstanding is dropped and
                           counted, never delayed (default 1000)
  --connections <n>        keep-alive HTTP connections at most, opened as the load needs them;
                           requests beyond them wait in the client, timed (default 256)

Orders:
  --base-url <url>         order-service (default http://127.0.0.1:3000)
  --mix <spec>             outcome weights (default confirmed=90,declined=5,out-of-stock=5)
  --customers <n>          distinct customers (default 1000)
  --seed <n>               seed of the order sequence (default: time-based, printed in the report)
  --trace-ratio <r>        fraction of orders traced, 0 to 1 (default 0.01): each POST carries a
                           W3C traceparent of a new trace, flagged sampled for that fraction and
                           not sampled for the rest, which the services' parent-based sampler
                           follows (an order placed by hand, without the header, is always traced)

Measurement:
  --kafka-brokers <list>   host:port,... (default KAFKA_BROKERS or 127.0.0.1:9092)
  --topic-prefix <p>       topic prefix of the stack under test (default KAFKA_TOPIC_PREFIX or none)
  --groups <spec>          consumer groups whose lag to sample, as group=topic+topic,...
                           (default: the five services' groups)
  --group-prefix <p>       the default groups, named <p><service>-service (a stack started with
                           KAFKA_CONSUMER_GROUP=<p><service>-service, as npm run bench does)
  --lag-interval <s>       seconds between lag samples (default 5)
  --drain-seconds <s>      wait this long after the load for terminal events (default 30)
  --check-emails           count emails per order in maildev (one expected per terminal event;
                           it keeps the newest MAILDEV_MAX_EMAILS, 5000: check runs below that)
  --maildev-url <url>      default http://127.0.0.1:1080
  --out <file.json>        default reports/loadgen-<timestamp>.json; the HTML report goes beside it
  -h, --help               print this help

The report states the generator's own CPU (ms per order, share of a core) and send delay (from a
request's scheduled time to its hand-over to the HTTP client): a p99 send delay above a few ms or
a share near 100 % means the generator, not the pipeline, was the limit.
End-to-end latency runs from each POST's scheduled send time to the arrival of its order.confirmed
or order.cancelled on the orders topic. "lost": placed, but no terminal event after the drain;
"duplicated": more than one terminal event. The summary ends with its VERDICT: PASS when nothing
is lost, duplicated or of an unexpected outcome (nor, with --check-emails, missing) and at least
97 % of the offered orders were placed; FAIL names what did not hold.
Exit status: 0 ran (whatever it measured), 1 failure, 2 usage error.`;
