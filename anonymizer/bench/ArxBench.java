// The ARX side of `anonymizer bench arx-grid --arx-jar JAR` (anonymizer/bench/arx_live.py): one
// ARX set-up in one JVM (a cold run, then `reps` warm runs), one JSON line on stdout, and
// optionally the published table as CSV. Part of the anonymizer (MIT), written against ARX's
// public API (ARX: Apache License 2.0); the bench compiles it with javac against the jar given.
//
// java -cp "JAR:DIR" ArxBench key=value ...
//   data=FILE           ';'-separated CSV with a header (required)
//   hier=DIR            directory of <prefix><attribute>.csv hierarchies (required)
//   prefix=STR          hierarchy file prefix (default adult_hierarchy_)
//   qis=a,b,...         quasi-identifiers, in the order the levels are printed (required)
//   sens=ATTR           sensitive attribute for l-diversity / t-closeness (default occupation)
//   k=INT               k-anonymity (0 = none)
//   ldiv=distinct:3     or entropy:3 (Shannon); l-diversity on sens
//   tclose=equal:0.2    or hier:0.2 (hierarchical distance with sens's hierarchy); t-closeness
//   supp=FRACTION       suppression limit (default 0); with mode=local, the limit of the first
//                       (global) step instead of the GUI's 1-1/iters (see arx_live.py)
//   gs=FRACTION         gsFactor of ARX's Loss metric (default 0.5: Metric.createLossMetric())
//   agg=geo|arith       the Loss metric's aggregate over QIs (default geo, ARX's default)
//   mode=global|local|safepub
//                       global: Flash, the optimal full-domain node;
//                       local: the GUI's local recoding (WorkerAnonymize): gsFactor 0,
//                       suppression limit 1-1/iters, then optimizeIterativeFast(out, 1/iters);
//                       safepub: SafePub, data-dependent (eps, delta)-DP (EDDifferentialPrivacy
//                       without a generalization scheme, ARX's Example37): Loss metric (as
//                       global), suppression limit 1, DP search over `steps`; k, supp, gs, agg,
//                       ldiv, tclose and levels are ignored
//   eps=FLOAT           safepub: total epsilon, the search budget included (default 1)
//   delta=FLOAT         safepub: delta (default 1e-5)
//   steps=INT           safepub: setHeuristicSearchStepLimit(steps), i.e. transformations
//                       checked; ARX's search then makes steps / #QIs expansions (default 300)
//   search=FLOAT        safepub: setDPSearchBudget, the epsilon of the search (default 0.1)
//   iters=INT           local: the GUI's number of iterations (default 100)
//   levels=l1,l2,...    global: evaluate only this transformation (min = max level per QI),
//                       to read ARX's score of a node another tool chose
//   reps=INT            warm repetitions after the cold run (default 5; the bench passes 0)
//   out=FILE            write the published table (all columns + _outlier 0/1) after the last run;
//                       safepub: each run's, to FILE with -<run> before its extension
//   stats=1             also compute ARX's own granularity (1 - NCP) of the output
//   label=STR           copied into the JSON line
//
// Timings are anonymize() (and, for local, getOutput + optimizeIterativeFast) inside the JVM,
// via System.nanoTime, with the CPU time of the calling thread (ARX runs in it) and of the
// whole JVM (GC and JIT threads included) over the same span. The bench times the whole
// process from outside. With mode=safepub every run (the cold one is run 0) is a fresh random
// release, so each prints its own JSON line (its time, node, suppressed rows, ARX's k and beta).
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxBench {

    static Map<String, String> a = new LinkedHashMap<>();

    static String arg(String k, String d) { return a.containsKey(k) ? a.get(k) : d; }

    static String req(String k) {
        if (!a.containsKey(k)) throw new IllegalArgumentException("missing argument " + k + "=...");
        return a.get(k);
    }

    public static void main(String[] args) throws Exception {
        for (String s : args) {
            int i = s.indexOf('=');
            if (i < 0) throw new IllegalArgumentException("arguments are key=value: " + s);
            a.put(s.substring(0, i), s.substring(i + 1));
        }
        long t0 = System.nanoTime();
        String dataPath = req("data");
        String hierDir = req("hier");
        String prefix = arg("prefix", "adult_hierarchy_");
        String[] qis = req("qis").split(",");
        String sens = arg("sens", "occupation");
        int k = Integer.parseInt(arg("k", "0"));
        String ldiv = arg("ldiv", "");
        String tclose = arg("tclose", "");
        double supp = Double.parseDouble(arg("supp", "0"));
        double gs = Double.parseDouble(arg("gs", "0.5"));
        String agg = arg("agg", "geo");
        if (!agg.equals("geo") && !agg.equals("arith")) throw new IllegalArgumentException("agg=geo|arith");
        String mode = arg("mode", "global");
        int iters = Integer.parseInt(arg("iters", "100"));
        String levelsArg = arg("levels", "");
        int reps = Integer.parseInt(arg("reps", "5"));
        String out = arg("out", "");
        boolean stats = arg("stats", "0").equals("1");
        boolean local = mode.equals("local");
        boolean safepub = mode.equals("safepub");
        if (!local && !safepub && !mode.equals("global")) throw new IllegalArgumentException("mode=global|local|safepub");
        double eps = Double.parseDouble(arg("eps", "1"));
        double delta = Double.parseDouble(arg("delta", "1e-5"));
        int steps = Integer.parseInt(arg("steps", "300"));
        double search = Double.parseDouble(arg("search", "0.1"));
        if (safepub) { k = 0; ldiv = ""; tclose = ""; levelsArg = ""; }
        // the GUI overwrites the user's limit with 1-1/iters for local recoding; given here, it
        // bounds the first (global) step, whose outliers the iterations then recode
        double firstLimit = a.containsKey("supp") ? supp : 1d - 1d / iters;
        boolean useSens = !ldiv.isEmpty() || !tclose.isEmpty();

        // Data and attribute types
        Data data = Data.create(dataPath, StandardCharsets.UTF_8, ';');
        Set<String> qiSet = new HashSet<>(Arrays.asList(qis));
        DataHandle in = data.getHandle();
        for (int c = 0; c < in.getNumColumns(); c++) {
            String name = in.getAttributeName(c);
            if (qiSet.contains(name)) {
                data.getDefinition().setAttributeType(name, Hierarchy.create(hierDir + "/" + prefix + name + ".csv", StandardCharsets.UTF_8, ';'));
            } else if (useSens && name.equals(sens)) {
                data.getDefinition().setAttributeType(name, AttributeType.SENSITIVE_ATTRIBUTE);
            } else {
                data.getDefinition().setAttributeType(name, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        if (!levelsArg.isEmpty()) {
            String[] lv = levelsArg.split(",");
            for (int i = 0; i < qis.length; i++) {
                int l = Integer.parseInt(lv[i]);
                data.getDefinition().setMinimumGeneralization(qis[i], l);
                data.getDefinition().setMaximumGeneralization(qis[i], l);
            }
        }
        int rows = in.getNumRows();
        double loadMs = (System.nanoTime() - t0) / 1e6;

        List<Double> globalMs = new ArrayList<>(), localMs = new ArrayList<>(), totalMs = new ArrayList<>();
        List<Double> threadCpuMs = new ArrayList<>(), procCpuMs = new ArrayList<>();
        java.lang.management.ThreadMXBean tmx = java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean osmx =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        ARXResult result = null;
        DataHandle output = null;
        long checked = -1;
        double outputMs = 0;
        for (int r = 0; r <= reps; r++) {
            if (r > 0) data.getHandle().release();
            ARXConfiguration config = ARXConfiguration.create();
            if (safepub) {
                config.addPrivacyModel(new EDDifferentialPrivacy(eps, delta)); // data-dependent: no scheme
                config.setDPSearchBudget(search);
                config.setHeuristicSearchStepLimit(steps);
            }
            if (k > 0) config.addPrivacyModel(new KAnonymity(k));
            if (!ldiv.isEmpty()) {
                String[] p = ldiv.split(":");
                if (p[0].equals("distinct")) config.addPrivacyModel(new DistinctLDiversity(sens, Integer.parseInt(p[1])));
                else if (p[0].equals("entropy")) config.addPrivacyModel(new EntropyLDiversity(sens, Double.parseDouble(p[1])));
                else throw new IllegalArgumentException("ldiv=distinct:L or entropy:L");
            }
            if (!tclose.isEmpty()) {
                String[] p = tclose.split(":");
                if (p[0].equals("equal")) config.addPrivacyModel(new EqualDistanceTCloseness(sens, Double.parseDouble(p[1])));
                else if (p[0].equals("hier")) config.addPrivacyModel(new HierarchicalDistanceTCloseness(sens, Double.parseDouble(p[1]),
                        Hierarchy.create(hierDir + "/" + prefix + sens + ".csv", StandardCharsets.UTF_8, ';')));
                else throw new IllegalArgumentException("tclose=equal:T or hier:T");
            }
            if (local) {
                config.setQualityModel(Metric.createLossMetric(0d));          // the GUI's default for local recoding
                config.setSuppressionLimit(firstLimit);
            } else if (safepub) {
                config.setQualityModel(Metric.createLossMetric());            // gs 0.5, geometric mean, as global
                config.setSuppressionLimit(1d);
            } else {
                config.setQualityModel(Metric.createLossMetric(gs, agg.equals("geo") ? Metric.AggregateFunction.GEOMETRIC_MEAN
                                                                                        : Metric.AggregateFunction.ARITHMETIC_MEAN));
                config.setSuppressionLimit(supp);
            }
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long c0 = tmx.getCurrentThreadCpuTime(), p0 = osmx.getProcessCpuTime();
            long s = System.nanoTime();
            result = anonymizer.anonymize(data, config);
            double g = (System.nanoTime() - s) / 1e6;
            checked = result.getProcessStatistics().getTransformationsChecked();
            double l = 0;
            if (local && result.getGlobalOptimum() != null) {
                long s2 = System.nanoTime();
                output = result.getOutput(false);
                result.optimizeIterativeFast(output, 1d / iters);
                l = (System.nanoTime() - s2) / 1e6;
            } else if (result.getGlobalOptimum() != null) {
                long s2 = System.nanoTime();
                output = result.getOutput(false);
                outputMs = (System.nanoTime() - s2) / 1e6;
            }
            threadCpuMs.add(r1((tmx.getCurrentThreadCpuTime() - c0) / 1e6));
            procCpuMs.add(r1((osmx.getProcessCpuTime() - p0) / 1e6));
            globalMs.add(r1(g));
            localMs.add(r1(l));
            totalMs.add(r1(g + l));
            if (safepub) {
                // one line per run: each is a fresh release (new sample, new random search)
                StringBuilder j = header(mode, dataPath, rows, 0);
                kv(j, "eps", eps);
                kv(j, "delta", delta);
                kv(j, "steps", steps);
                kv(j, "search", search);
                kv(j, "expansions", config.getHeuristicSearchStepLimit(ARXConfiguration.SearchStepSemantics.EXPANSIONS, qis.length));
                // ARX derives k and beta from eps - search (EDDifferentialPrivacy.initialize)
                EDDifferentialPrivacy used = result.getConfiguration().getPrivacyModel(EDDifferentialPrivacy.class);
                kv(j, "dp_k", used.getK());
                kv(j, "dp_beta", used.getBeta());
                kv(j, "sampled", used.getDataSubset().getSize());
                kv(j, "run", r);
                kv(j, "cold", r == 0);
                kv(j, "load_ms", loadMs);
                kv(j, "anonymize_ms", r1(g));
                kv(j, "thread_cpu_ms", threadCpuMs.get(r));
                kv(j, "process_cpu_ms", procCpuMs.get(r));
                kv(j, "get_output_ms", output != null ? outputMs : 0d);
                kv(j, "transformations_checked", checked);            // ARX counts 1 for this search
                describe(j, result, output, qis, stats, out.isEmpty() ? "" : numbered(out, r));
                kv(j, "max_heap_mb", Runtime.getRuntime().maxMemory() / 1048576);
                kv(j, "process_ms", (System.nanoTime() - t0) / 1e6);
                j.setLength(j.length() - 1);
                System.out.println(j.append("}"));
                System.out.flush();
                output = null;
            }
        }
        if (safepub) return;

        StringBuilder j = header(mode, dataPath, rows, k);
        kv(j, "ldiv", ldiv);
        kv(j, "tclose", tclose);
        kv(j, "supp", local ? firstLimit : supp);
        kv(j, "gs", local ? 0d : gs);
        kv(j, "agg", agg);
        if (!levelsArg.isEmpty()) kv(j, "fixed_levels", levelsArg);
        kv(j, "load_ms", loadMs);
        kv(j, "cold_ms", totalMs.get(0));
        List<Double> warm = totalMs.subList(1, totalMs.size());
        kv(j, "warm_ms", warm.toString());
        kv(j, "warm_median_ms", median(warm));
        kv(j, "warm_min_ms", warm.isEmpty() ? Double.NaN : warm.stream().mapToDouble(Double::doubleValue).min().getAsDouble());
        kv(j, "thread_cpu_ms", threadCpuMs.toString());
        kv(j, "process_cpu_ms", procCpuMs.toString());
        kv(j, "warm_thread_cpu_median_ms", median(threadCpuMs.subList(1, threadCpuMs.size())));
        kv(j, "warm_process_cpu_median_ms", median(procCpuMs.subList(1, procCpuMs.size())));
        if (local) {
            kv(j, "global_step_ms", globalMs.toString());
            kv(j, "local_step_ms", localMs.toString());
        } else {
            kv(j, "get_output_ms", outputMs);
        }
        kv(j, "transformations_checked", checked);
        describe(j, result, output, qis, stats, out);
        kv(j, "max_heap_mb", Runtime.getRuntime().maxMemory() / 1048576);
        kv(j, "process_ms", (System.nanoTime() - t0) / 1e6);
        j.setLength(j.length() - 1);
        System.out.println(j.append("}"));
    }

    /** The JSON line's opening fields. */
    static StringBuilder header(String mode, String dataPath, int rows, int k) {
        StringBuilder j = new StringBuilder("{");
        kv(j, "tool", "ARX " + ARXAnonymizer.VERSION);
        kv(j, "label", arg("label", ""));
        kv(j, "mode", mode);
        kv(j, "data", new File(dataPath).getName());
        kv(j, "rows", rows);
        kv(j, "k", k);
        return j;
    }

    /** FILE with -N before its extension (arx.csv, 3 -> arx-3.csv). */
    static String numbered(String file, int n) {
        int dot = file.lastIndexOf('.');
        return dot > file.lastIndexOf(File.separatorChar) ? file.substring(0, dot) + "-" + n + file.substring(dot) : file + "-" + n;
    }

    /** The chosen node, the output's classes and suppressed rows, and the published table to `out`. */
    static void describe(StringBuilder j, ARXResult result, DataHandle output, String[] qis, boolean stats, String out) throws Exception {
        ARXNode opt = result.getGlobalOptimum();
        kv(j, "found", opt != null);
        if (opt != null) {
            String[] nodeQis = opt.getQuasiIdentifyingAttributes();
            int[] tr = opt.getTransformation();
            Map<String, Integer> byName = new LinkedHashMap<>();
            for (int i = 0; i < nodeQis.length; i++) byName.put(nodeQis[i], tr[i]);
            StringBuilder lv = new StringBuilder();
            for (String q : qis) lv.append(lv.length() == 0 ? "" : " ").append(byName.get(q));
            kv(j, "levels", lv.toString());
            kv(j, "optimal", result.getOptimumFound());
            kv(j, "score", Double.parseDouble(opt.getHighestScore().toString()));
            kv(j, "score_low", Double.parseDouble(opt.getLowestScore().toString()));
        }
        if (output != null) {
            int n = output.getNumRows(), cols = output.getNumColumns();
            int[] qiIdx = new int[qis.length];
            for (int i = 0; i < qis.length; i++) qiIdx[i] = output.getColumnIndexOf(qis[i]);
            Map<String, Integer> classes = new java.util.HashMap<>();
            int outliers = 0;
            for (int r = 0; r < n; r++) {
                if (output.isOutlier(r)) { outliers++; continue; }
                StringBuilder key = new StringBuilder();
                for (int c : qiIdx) key.append(output.getValue(r, c)).append('\u0001');
                classes.merge(key.toString(), 1, Integer::sum);
            }
            kv(j, "suppressed", outliers);
            kv(j, "classes", classes.size());
            kv(j, "min_class", classes.values().stream().mapToInt(Integer::intValue).min().orElse(0));
            if (stats) {
                long s = System.nanoTime();
                double gran = output.getStatistics().getQualityStatistics().getGranularity().getArithmeticMean(true);
                kv(j, "arx_granularity", gran);
                kv(j, "arx_ncp", 1d - gran);
                kv(j, "stats_ms", (System.nanoTime() - s) / 1e6);
            }
            if (!out.isEmpty()) {
                long s = System.nanoTime();
                try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8))) {
                    for (int c = 0; c < cols; c++) w.write(output.getAttributeName(c) + ";");
                    w.write("_outlier\n");
                    for (int r = 0; r < n; r++) {
                        for (int c = 0; c < cols; c++) { w.write(output.getValue(r, c)); w.write(';'); }
                        w.write(output.isOutlier(r) ? "1\n" : "0\n");
                    }
                }
                kv(j, "write_ms", (System.nanoTime() - s) / 1e6);
                kv(j, "out", new File(out).getName());
            }
        }
    }

    static double r1(double ms) { return Math.round(ms * 10) / 10d; }

    static double median(List<Double> v) {
        if (v.isEmpty()) return Double.NaN;
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static void kv(StringBuilder j, String k, Object v) {
        j.append('"').append(k).append("\":");
        if (v instanceof Number || v instanceof Boolean) {
            if (v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())) j.append("null");
            else if (v instanceof Double) j.append(Double.toString((Double) v));
            else j.append(v);
        } else if (v instanceof String && ((String) v).startsWith("[")) {
            j.append(v);   // a list already
        } else {
            j.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        j.append(',');
    }
}
