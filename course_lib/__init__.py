"""course_lib — the shared code of the Machine Learning Foundations course.

Computation lives in small modules (``data``, ``perceptron``, ``theory``), drawing in
``plotting`` and interaction in ``widgets``. The most used names are available at the
top level, so a notebook needs only ``import course_lib as cl``.

Importing course_lib changes no global state: no matplotlib style, no random seed.
"""
import importlib

from . import (
    data,
    digits,
    hoeffding,
    kernels,
    neighbors,
    overfitting,
    perceptron,
    regression,
    regularization,
    svm,
    theory,
    validation,
)
from .data import (
    DataUnavailableError,
    load_homework,
    load_labeled_points,
    make_noisy,
    make_random_line_data,
    make_separable,
    make_spirals,
    random_line_target,
    spam_examples,
)
from .digits import (
    intensity,
    load_digit_features,
    load_digit_images,
    load_features,
    load_sklearn_digits,
    load_usps,
    one_vs_all,
    one_vs_one,
    symmetry,
)
from .error_measures import cost_matrix, pointwise_error, weighted_error, weighted_pocket
from .generalization import (
    bounding_function,
    count_dichotomies,
    dichotomies,
    generalization_bounds,
    growth_function,
    hoeffding_sample_size,
    is_shattered,
    vc_bound,
    vc_sample_size,
)
from .kernels import kernel_matrix, kernel_perceptron, linear_kernel, polynomial_kernel, quadratic_features, rbf_kernel
from .naive_bayes import bag_of_words, fit_bernoulli_nb, fit_gaussian_nb, fit_multinomial_nb
from .neighbors import fit_standardizer, knn_predict, pairwise_distances
from .overfitting import (
    deterministic_noise,
    legendre_experiment,
    legendre_features,
    legendre_out_of_sample_error,
    legendre_target,
    make_legendre_data,
    overfit_measure,
)
from .perceptron import (
    add_bias,
    error_rate,
    perceptron_dual,
    perceptron_with_bias,
    pla,
    pla_runs,
    pocket,
    pocket_runs,
    predict,
)
from .regression import (
    circle_target,
    cross_entropy_error,
    cross_entropy_gradient,
    hat_matrix,
    homework_transform,
    linear_classifier,
    linear_regression,
    logistic_regression,
    logistic_sgd_epoch,
    logistic_sgd_runs,
    make_circle_data,
    poly_transform,
    predict_probability,
    pseudo_inverse,
    squared_error,
    theta,
)
from .regularization import constrained_regression, d_eff, l1_regression, weight_decay_path
from .svm import fit_svm, fit_svm_primal, kkt_violation
from .svm_variants import fit_lp_svm, fit_reduced_svm, fit_robust_lp
from .theory import (
    bias_form_bound,
    check_novikoff,
    margin,
    novikoff_bound,
    radius,
)
from .tradeoff import bias_variance, linear_learning_curve
from .validation import (
    cross_validation_error,
    fold_indices,
    leave_one_out_error,
    validation_experiment,
    validation_split,
)

__version__ = "0.1.0"

# plotting and widgets pull in matplotlib and ipywidgets (about a second): they are imported
# the first time they are used (``cl.plotting.plot_data``, ``cl.widgets.PLAStepper``).
_LAZY = ("plotting", "widgets")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'course_lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "data", "hoeffding", "perceptron", "plotting", "theory", "widgets",
    "load_labeled_points", "load_homework", "DataUnavailableError", "make_noisy", "make_random_line_data", "make_separable",
    "random_line_target",
    "add_bias", "error_rate", "pla", "pla_runs", "pocket", "pocket_runs", "perceptron_with_bias",
    "perceptron_dual", "predict",
    "bias_form_bound", "check_novikoff", "margin", "novikoff_bound", "radius",
    "digits", "intensity", "symmetry", "load_sklearn_digits", "load_usps", "load_features", "one_vs_one", "one_vs_all",
    "load_digit_images", "load_digit_features",
]
__all__ += [
    "regression", "linear_regression", "pseudo_inverse", "hat_matrix", "squared_error", "linear_classifier",
    "poly_transform", "circle_target", "make_circle_data", "theta", "predict_probability",
    "cross_entropy_error", "cross_entropy_gradient", "logistic_regression", "logistic_sgd_epoch",
    "logistic_sgd_runs",
]
__all__ += [
    "kernels", "linear_kernel", "polynomial_kernel", "rbf_kernel", "kernel_matrix", "quadratic_features",
    "kernel_perceptron", "make_spirals", "svm", "fit_svm", "fit_svm_primal", "kkt_violation",
    "neighbors", "knn_predict", "pairwise_distances", "fit_standardizer",
]
__all__ += ["naive_bayes", "fit_gaussian_nb", "fit_bernoulli_nb", "fit_multinomial_nb", "bag_of_words", "spam_examples"]
__all__ += ["svm_variants", "fit_robust_lp", "fit_lp_svm", "fit_reduced_svm"]
__all__ += [
    "generalization", "dichotomies", "count_dichotomies", "is_shattered", "growth_function", "bounding_function",
    "hoeffding_sample_size", "vc_bound", "vc_sample_size", "generalization_bounds",
    "tradeoff", "bias_variance", "linear_learning_curve",
    "error_measures", "pointwise_error", "cost_matrix", "weighted_error", "weighted_pocket",
]
__all__ += [
    "overfitting", "legendre_features", "legendre_target", "make_legendre_data", "legendre_out_of_sample_error",
    "deterministic_noise", "legendre_experiment", "overfit_measure",
    "homework_transform", "regularization", "weight_decay_path", "constrained_regression", "d_eff", "l1_regression",
    "validation", "validation_split", "leave_one_out_error", "cross_validation_error", "fold_indices",
    "validation_experiment",
]
