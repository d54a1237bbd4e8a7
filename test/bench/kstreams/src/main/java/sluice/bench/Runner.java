package sluice.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * One JVM, driven by the harness (test/bench/systems.ts) over stdin, one command a line:
 * "run APP_ID OUTPUT" starts the workload under a fresh application id and prints
 * "running APP_ID" once it is RUNNING; "stop" closes it and prints "stopped RESTORED_RECORDS".
 * A second "run" in the same JVM is the steady-state figure. Settings come from the
 * environment: BOOTSTRAP, WORKLOAD, INPUT, TABLE, GUARANTEE, COMMIT_INTERVAL_MS, STATE_DIR.
 */
public final class Runner {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    KafkaStreams streams = null;
    AtomicLong restored = new AtomicLong();
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split(" ");
      if (words[0].equals("run")) {
        restored.set(0);
        streams = start(words[1], words[2], restored);
      } else if (words[0].equals("stop") && streams != null) {
        // Leave the group now, as the other systems do on close: otherwise the next process of
        // the same application (the restore run) waits out the session timeout before it joins.
        streams.close(new KafkaStreams.CloseOptions().leaveGroup(true));
        streams.cleanUp();
        streams = null;
        System.out.println("stopped " + restored.get());
        System.out.flush();
      }
    }
    if (streams != null) streams.close();
  }

  private static KafkaStreams start(String applicationId, String output, AtomicLong restored) throws Exception {
    String guarantee = env("GUARANTEE");
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, env("BOOTSTRAP"));
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee.equals("exactly_once") ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE);
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.parseLong(env("COMMIT_INTERVAL_MS")));
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(Path.of(env("STATE_DIR"), applicationId)).toString());
    props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // A static member id is what lets close() remove the member from the group at once.
    props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), applicationId + "-" + ProcessHandle.current().pid());
    String table = System.getenv().getOrDefault("TABLE", "");
    KafkaStreams streams = new KafkaStreams(Workloads.build(env("WORKLOAD"), env("INPUT"), table, output), props);
    CountDownLatch running = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) running.countDown();
      if (now == KafkaStreams.State.ERROR) {
        System.err.println("kafka streams entered ERROR");
        System.exit(1);
      }
    });
    streams.setGlobalStateRestoreListener(new StateRestoreListener() {
      @Override public void onRestoreStart(TopicPartition tp, String store, long start, long end) {}
      @Override public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long count) { restored.addAndGet(count); }
      @Override public void onRestoreEnd(TopicPartition tp, String store, long total) {}
    });
    streams.start();
    running.await();
    System.out.println("running " + applicationId);
    System.out.flush();
    return streams;
  }

  static String env(String name) {
    String value = System.getenv(name);
    if (value == null) throw new IllegalArgumentException("the Kafka Streams bench runner needs the environment variable " + name);
    return value;
  }
}
