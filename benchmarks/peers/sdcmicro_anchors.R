# sdcMicro's own risk numbers for microanon's anchor tests (tests/data/sdcmicro_*).
#
# Run (R with sdcMicro in R_LIBS; see benchmarks/README.md, "sdcMicro"):
#   Rscript benchmarks/peers/sdcmicro_anchors.R DATA.csv OUT_PREFIX KEYS WEIGHT HID
# e.g.
#   Rscript benchmarks/peers/sdcmicro_anchors.R tests/data/survey_synthetic.csv \
#       tests/data/sdcmicro_survey urbrur,roof,walls,water,electcon,relat,sex weight hid
#
# Writes OUT_PREFIX.json (sdcMicro's version, the exact calls, the global figures) and
# OUT_PREFIX_records.csv (full precision; per record: measure_risk's risk, fk, Fk, hier_risk; freqCalc's fk and Fk
# with alpha = 0.5; suda2's score, dis-score and contributions). Empty CSV cells are NA.
suppressPackageStartupMessages({
  library(sdcMicro)
  library(jsonlite)
})
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 5)
data_path <- args[1]
out <- args[2]
keys <- strsplit(args[3], ",")[[1]]
w <- args[4]
hid <- args[5]
options(digits = 17)
df <- read.csv(data_path)
calls <- list()
res <- list(sdcMicro = as.character(packageVersion("sdcMicro")), R = R.version.string,
            data = basename(data_path), keys = keys, weight = w, household = hid, rows = nrow(df))

# 1. individual (Benedetti-Franconi) and household risk
calls$measure_risk <- sprintf("measure_risk(df, keyVars = c(%s), w = \"%s\", hid = \"%s\")",
                              paste0("\"", keys, "\"", collapse = ", "), w, hid)
mr <- measure_risk(df, keyVars = keys, w = w, hid = hid)
res$global_risk <- mr$global_risk
res$global_risk_ER <- mr$global_risk_ER
res$hier_risk <- mr$hier_risk
res$hier_risk_ER <- mr$hier_risk_ER
calls$measure_risk_unweighted <- sprintf("measure_risk(df, keyVars = c(%s))",
                                         paste0("\"", keys, "\"", collapse = ", "))
mr0 <- measure_risk(df, keyVars = keys)
res$global_risk_unweighted <- mr0$global_risk
calls$freqCalc_alpha <- sprintf("freqCalc(df, keyVars = c(%s), w = \"%s\", alpha = 0.5)",
                                paste0("\"", keys, "\"", collapse = ", "), w)
fc <- freqCalc(df, keyVars = keys, w = w, alpha = 0.5)
res$freqCalc_alpha_n1 <- fc$n1
res$freqCalc_alpha_n2 <- fc$n2

# 2. log-linear model risk: keys as factors (categorical main effects), rows with a missing key
#    left out by glm as in sdcMicro; then one model with a two-way interaction
dff <- df
for (k in keys) dff[[k]] <- factor(dff[[k]])
form <- as.formula(paste("~", paste(keys, collapse = " + ")))
calls$modRisk <- sprintf("modRisk(dff, method = \"default\", formulaM = %s, weights = \"%s\")",
                         deparse(form, width.cutoff = 500), w)
mod <- modRisk(dff, method = "default", formulaM = form, weights = w)
res$modRisk_gr1 <- mod$gr1
res$modRisk_gr2 <- mod$gr2
form2 <- as.formula(paste("~", paste(keys, collapse = " + "), "+", keys[1], ":", keys[2]))
calls$modRisk_interaction <- sprintf("modRisk(dff, method = \"default\", formulaM = %s, weights = \"%s\")",
                                     deparse(form2, width.cutoff = 500), w)
mod2 <- modRisk(dff, method = "default", formulaM = form2, weights = w)
res$modRisk_interaction_gr1 <- mod2$gr1
res$modRisk_interaction_gr2 <- mod2$gr2
calls$factors <- "dff <- df; for (k in keys) dff[[k]] <- factor(dff[[k]])"

# 3. SUDA2
calls$suda2 <- sprintf("suda2(df, variables = c(%s), missing = -999, DisFraction = 0.01)",
                       paste0("\"", keys, "\"", collapse = ", "))
su <- suda2(df, variables = keys, missing = -999, DisFraction = 0.01)
res$suda2_attribute_contributions <- setNames(as.list(su$attribute_contributions$contribution),
                                              su$attribute_contributions$variable)
res$calls <- calls

rec <- data.frame(risk = mr$Res[, "risk"], fk = mr$Res[, "fk"], Fk = mr$Res[, "Fk"],
                  hier_risk = mr$Res[, "hier_risk"], risk_unweighted = mr0$Res[, "risk"],
                  fk_alpha = fc$fk, Fk_alpha = fc$Fk,
                  suda_score = su$score, dis_suda_score = su$disScore)
contrib <- as.data.frame(su$contributionPercent)
colnames(contrib) <- paste0("contribution_", keys)
rec <- cbind(rec, contrib)
for (col in names(rec)) rec[[col]] <- ifelse(is.na(rec[[col]]), "", sprintf("%.17g", rec[[col]]))
write.csv(rec, paste0(out, "_records.csv"), row.names = FALSE, quote = FALSE)
full <- function(v) {  # numbers with 17 significant digits (jsonlite stops at 15)
  if (is.list(v)) return(lapply(v, full))
  if (is.double(v) && length(v) == 1) return(structure(sprintf("%.17g", v), class = "json"))
  v
}
writeLines(toJSON(full(res), auto_unbox = TRUE, json_verbatim = TRUE, pretty = TRUE),
           paste0(out, ".json"))
cat("wrote", paste0(out, ".json"), "and", paste0(out, "_records.csv"), "\n")
