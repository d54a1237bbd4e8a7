package dev.sluice.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs every scenario of an input file on Kafka Streams' TopologyTestDriver in this one JVM
 * and writes what each output topic received.
 * Usage: Main <scenarios.json> <results.json>
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("Usage: Main <scenarios.json> <results.json>");
            System.exit(2);
        }
        ObjectMapper json = new ObjectMapper();
        JsonNode input = json.readTree(new File(args[0]));
        Registry registry = Registry.all();
        ObjectNode results = json.createObjectNode();
        for (JsonNode scenario : input.get("scenarios")) {
            String name = scenario.get("name").asText();
            ObjectNode result = results.putObject(name);
            var topology = registry.get(name);
            if (topology == null) {
                result.put("error", "No Java topology is registered under \"" + name + "\": add it to a class in dev.sluice.parity.scenarios.");
                result.putArray("records");
                continue;
            }
            try {
                result.set("records", new ScenarioRun(scenario, topology, json).run());
            } catch (Throwable error) {
                StringWriter trace = new StringWriter();
                error.printStackTrace(new PrintWriter(trace));
                result.put("error", trace.toString());
                result.putArray("records");
            }
        }
        json.writeValue(new File(args[1]), results);
    }
}
