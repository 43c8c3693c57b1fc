// microanon's driver of ARX for benchmarks/arx.py and arx_heuristic.py (our code; it calls ARX's public API only).
//
// Usage: java -cp <ARX classes and jars>:<this class> ArxBench DATA.csv HIERARCHY_DIR [JOB]
//
// DATA.csv is a comma-separated table with a header line (no quoting: ARX's Adult has no
// commas in its values); HIERARCHY_DIR holds ARX hierarchy files hierarchy_<column>.csv
// (semicolon-separated, as ARX ships them). Both are read once, before any timing.
//
// A job is one line of space-separated fields:
//   <model> <parameter> <suppression> <metric> <quasi,identifiers> <sensitive> <output.csv|->
// model: k, l-distinct, l-entropy or t (equal distance); metric: loss (ARX's default Loss:
// gs-factor 0.5, geometric mean) or loss-mean (Loss with the arithmetic mean, closest to LM).
// Two more fields choose ARX's search (benchmarks/arx_heuristic.py):
//   ... <output.csv|-> <algorithm> <time limit ms>
// algorithm: optimal (the default without them: FLASH), lightning (BEST_EFFORT_BOTTOM_UP),
// top-down (BEST_EFFORT_TOP_DOWN) or genetic (BEST_EFFORT_GENETIC, ARX's default parameters);
// the time limit is ARXConfiguration.setHeuristicSearchTimeLimit (ignored by optimal).
// Columns that are neither quasi-identifiers nor the sensitive attribute of an l/t model are
// insensitive.
//
// With JOB on the command line the driver runs it once and exits (the cold mode: benchmarks/arx.py
// times the whole JVM from the outside). Without it, it reads jobs from standard input, one per
// line, runs each and answers one JSON line per job (the warm mode: one JVM for every run).
//
// A run is timed end to end from the rows in memory to the published table: Data.create, the
// attribute types and hierarchies, the configuration, ARXAnonymizer.anonymize, then the output
// handle with every cell read (and written to output.csv when one is given, after the timing).
// The JSON gives the main thread's CPU (ThreadMXBean), the whole JVM's CPU (its JIT compiler and
// garbage collector threads included) and the wall time in ms, the chosen node
// (levels per quasi-identifier, in the job's order), the suppressed rows, the transformations
// checked and ARX's own search time (ARXResult.getTime, wall).
//
// With -Darxbench.freshStrings=true every run gets new String objects for the rows' cells, made
// before its timing starts: a Java String caches its hash code, so rows used again run by run
// are hashed once per JVM, whereas rows just read from a file (what a user has) are hashed by
// the run itself, as every run of microanon hashes its table's text.

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataDefinition;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;

public final class ArxBench {

    private static final boolean FRESH_STRINGS = Boolean.getBoolean("arxbench.freshStrings");

    private final String[] header;
    private final List<String[]> rows;
    private final Map<String, String[][]> hierarchies = new HashMap<>();

    private ArxBench(File data, File hierarchyDir) throws IOException {
        List<String> lines = Files.readAllLines(data.toPath(), StandardCharsets.UTF_8);
        header = lines.get(0).split(",", -1);
        rows = new ArrayList<>(lines.size() - 1);
        for (String line : lines.subList(1, lines.size())) {
            if (!line.isEmpty()) {
                rows.add(line.split(",", -1));
            }
        }
        for (String column : header) {
            File file = new File(hierarchyDir, "hierarchy_" + column + ".csv");
            if (file.exists()) {
                Hierarchy h = Hierarchy.create(file, StandardCharsets.UTF_8, ';');
                hierarchies.put(column, h.getHierarchy());
            }
        }
    }

    private static PrivacyCriterion model(String name, String parameter, String sensitive) {
        switch (name) {
            case "k": return new KAnonymity(Integer.parseInt(parameter));
            case "l-distinct": return new DistinctLDiversity(sensitive, Integer.parseInt(parameter));
            case "l-entropy": return new EntropyLDiversity(sensitive, Double.parseDouble(parameter));
            case "t": return new EqualDistanceTCloseness(sensitive, Double.parseDouble(parameter));
            default: throw new IllegalArgumentException("unknown model " + name);
        }
    }

    private static Metric<?> metric(String name) {
        switch (name) {
            case "loss": return Metric.createLossMetric();
            case "loss-mean": return Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN);
            default: throw new IllegalArgumentException("unknown ARX metric " + name);
        }
    }

    private static ARXConfiguration.AnonymizationAlgorithm algorithm(String name) {
        switch (name) {
            case "optimal": return ARXConfiguration.AnonymizationAlgorithm.OPTIMAL;
            case "lightning": return ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP;
            case "top-down": return ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_TOP_DOWN;
            case "genetic": return ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_GENETIC;
            default: throw new IllegalArgumentException("unknown ARX algorithm " + name);
        }
    }

    private String run(String job) throws IOException {
        String[] f = job.trim().split(" ");
        if (f.length != 7 && f.length != 9) {
            throw new IllegalArgumentException("a job has 7 or 9 fields, got: " + job);
        }
        String modelName = f[0];
        String parameter = f[1];
        double suppression = Double.parseDouble(f[2]);
        List<String> quasi = Arrays.asList(f[4].split(","));
        String sensitive = f[5];
        boolean needsSensitive = !modelName.equals("k");
        for (String q : quasi) {
            if (!hierarchies.containsKey(q)) {
                throw new IllegalArgumentException("no hierarchy file for " + q);
            }
        }

        List<String[]> source = FRESH_STRINGS ? freshCopies(rows) : rows;
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long process0 = os.getProcessCpuTime();
        long cpu0 = bean.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();

        List<String[]> input = new ArrayList<>(rows.size() + 1);
        input.add(header);
        input.addAll(source);
        Data data = Data.create(input);
        DataDefinition definition = data.getDefinition();
        for (String column : header) {
            if (quasi.contains(column)) {
                definition.setAttributeType(column, Hierarchy.create(hierarchies.get(column)));
            } else if (needsSensitive && column.equals(sensitive)) {
                definition.setAttributeType(column, AttributeType.SENSITIVE_ATTRIBUTE);
            } else {
                definition.setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(model(modelName, parameter, sensitive));
        config.setSuppressionLimit(suppression);
        config.setQualityModel(metric(f[3]));
        if (f.length == 9) {
            config.setAlgorithm(algorithm(f[7]));
            config.setHeuristicSearchTimeLimit(Integer.parseInt(f[8]));
        }
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        ARXNode optimum = result.getGlobalOptimum();
        DataHandle output = optimum == null ? null : result.getOutput();
        int suppressed = 0;
        long cells = 0;
        if (output != null) {
            int columns = output.getNumColumns();
            for (int row = 0; row < output.getNumRows(); row++) {
                if (output.isOutlier(row)) {
                    suppressed++;
                }
                for (int c = 0; c < columns; c++) {
                    cells += output.getValue(row, c).length();
                }
            }
        }

        long cpu = bean.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        long process = os.getProcessCpuTime() - process0;

        if (output != null && !f[6].equals("-")) {
            try (PrintWriter out = new PrintWriter(f[6], "UTF-8")) {
                out.println(String.join(",", header));
                for (int row = 0; row < output.getNumRows(); row++) {
                    if (output.isOutlier(row)) {
                        continue;
                    }
                    String[] values = new String[output.getNumColumns()];
                    for (int c = 0; c < values.length; c++) {
                        values[c] = output.getValue(row, c);
                    }
                    out.println(String.join(",", values));
                }
            }
        }
        StringBuilder levels = new StringBuilder("[");
        if (optimum != null) {
            for (int i = 0; i < quasi.size(); i++) {
                levels.append(i == 0 ? "" : ",").append(optimum.getGeneralization(quasi.get(i)));
            }
        }
        levels.append("]");
        return String.format(
            java.util.Locale.ROOT,
            "{\"cpu_ms\": %.3f, \"process_cpu_ms\": %.3f, \"wall_ms\": %.3f, \"levels\": %s, \"found\": %b, "
                + "\"suppressed\": %d, \"rows\": %d, \"checked\": %d, \"search_ms\": %d, "
                + "\"cells\": %d}",
            cpu / 1e6, process / 1e6, wall / 1e6, levels, optimum != null, suppressed, rows.size(),
            result.getProcessStatistics().getTransformationsChecked(), result.getTime(), cells);
    }

    /** The rows with every cell a new String (from its characters: no hash code cached). */
    private static List<String[]> freshCopies(List<String[]> rows) {
        List<String[]> out = new ArrayList<>(rows.size());
        for (String[] row : rows) {
            String[] copy = new String[row.length];
            for (int c = 0; c < row.length; c++) {
                copy[c] = new String(row[c].toCharArray());
            }
            out.add(copy);
        }
        return out;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ArxBench DATA.csv HIERARCHY_DIR [JOB]");
            System.exit(2);
        }
        ArxBench bench = new ArxBench(new File(args[0]), new File(args[1]));
        if (args.length > 2) {
            System.out.println(bench.run(String.join(" ", Arrays.copyOfRange(args, 2, args.length))));
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            String answer;
            try {
                answer = bench.run(line);
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage()).replace("\\", "\\\\").replace("\"", "'");
                answer = "{\"error\": \"" + e.getClass().getSimpleName() + ": " + message + "\"}";
            }
            System.out.println(answer);
            System.out.flush();
        }
    }
}
